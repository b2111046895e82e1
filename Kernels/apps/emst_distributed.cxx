// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// emst_distributed: the distributed engine (emst/Distributed.h) from the command line, over MPI
// ranks (mpiexec -np P emst_distributed ...; built with MPI when CMake found it) or over in-process
// ranks (--ranks P: threads, e.g. several ranks sharing one GPU, or a machine without MPI). Each
// rank reads only its share of an .f32 file (contiguous chunks, slabs along x, or a pseudo-random
// interleave), computes the tree with the others, and rank 0 prints one line per rank and a
// machine-readable summary:
//   ranks=P split=S points=N dim=D edges=E total_weight=W backend=B time_ms=T ...
// --check also computes the serial tree of the points in global-id order on rank 0 and compares
// the edge lists exactly (small sets: rank 0 then holds every point).
// Exit status: 0 success, 1 engine, file or check error ("emst_distributed: error: ..."), 2 usage.
#include "CommandLine.h"
#include "emst/Distributed.h"
#include "emst/PointFile.h"

#if defined(EMST_WITH_MPI)
#include "MpiCommunicator.h"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>

namespace
{

using emstcli::UsageError;

const char* const UsageText =
  "usage: emst_distributed [--ranks P] [--split chunks|slabs|interleave] [--backend "
  "auto|cuda|cpu]\n"
  "                        [--threads N] [--device D | --device-per-rank] [--boxes K] [--repeat "
  "R]\n"
  "                        [--check] [--edges PREFIX] [--quiet] FILE.f32\n";

const char* const HelpText =
  "Computes the exact Euclidean minimum spanning tree of a point cloud split over ranks, without\n"
  "gathering it: each rank reads and keeps only its share.\n"
  "\n"
  "FILE.f32         little-endian uint64 n, uint32 dim, n*dim float32; each rank reads its share\n"
  "                 (text files .xyz/.csv: every rank reads all and keeps its share).\n"
  "--ranks P        P in-process ranks (threads) instead of MPI ranks; without MPI support, or\n"
  "                 when not started by mpiexec, the default is 1.\n"
  "--split S        how the points are shared: chunks (contiguous runs of the file, default),\n"
  "                 slabs (along x, from a sample's quantiles), interleave (each point to a\n"
  "                 pseudo-random rank: every rank's box covers everything, the worst case).\n"
  "--backend B      the local trees' engine: auto (default), cuda (or gpu), cpu.\n"
  "--threads N      CPU backend threads per rank, 0 to 1024 (0: the OpenMP default).\n"
  "--device D       CUDA device of every rank (default 0); --device-per-rank: rank r of a node\n"
  "                 uses device r (one MPI rank per GPU).\n"
  "--boxes K        boxes each rank publishes of its points (default 64).\n"
  "--repeat R       runs (default 1); the times are the fastest run's.\n"
  "--check          compare with the serial engine on rank 0 (edge lists, exactly).\n"
  "--edges PREFIX   each rank writes PREFIX.rank<r>.txt: its edges, \"i j length\" (global ids).\n"
  "--quiet          the summary line only.\n"
  "-h, --help       this text.\n"
  "\n"
  "Global ids: rank offset + index in the rank's share; the tree is the serial one of the ranks'\n"
  "shares concatenated in rank order (for chunks: the file's order).\n"
  "Output (rank 0, stdout): per rank, its points, owned edges, remote ends, certified edges,\n"
  "fragments, rounds, queries and exchanged points, bytes, phase times and peak memory; then\n"
  "  ranks=P split=S points=N dim=D edges=E total_weight=W backend=B time_ms=T cpu_s=C\n"
  "  max_exchanged_points=X max_rss_mb=M [check=ok]\n"
  "(T: the slowest rank's wall time; C: the ranks' CPU times added up.)\n"
  "Exit status: 0 success, 1 error, 2 usage error.\n";

struct CommandLine
{
  int ranks = 0; ///< 0: MPI (or 1 without it)
  std::string split = "chunks";
  std::string backend = "auto";
  int threads = 0;
  int device = 0;
  bool devicePerRank = false;
  int boxes = 64;
  int repeat = 1;
  bool check = false;
  std::string edges;
  bool quiet = false;
  bool help = false;
  std::string input;
};

CommandLine parseCommandLine(int argc, char** argv)
{
  CommandLine cl;
  emstcli::Arguments args(argc, argv);
  while (args.next())
  {
    const std::string& name = args.name();
    if (name == "-h" || name == "--help")
    {
      cl.help = true;
    }
    else if (name == "--ranks")
    {
      cl.ranks = emstcli::parseInteger("--ranks", args.value(), 1, 4096);
    }
    else if (name == "--split")
    {
      cl.split = args.value();
      if (cl.split != "chunks" && cl.split != "slabs" && cl.split != "interleave")
      {
        throw UsageError{ "--split must be chunks, slabs or interleave, not '" + cl.split + "'" };
      }
    }
    else if (name == "--backend")
    {
      cl.backend = args.value();
    }
    else if (name == "--threads")
    {
      cl.threads = emstcli::parseThreads(args.value());
    }
    else if (name == "--device")
    {
      cl.device = emstcli::parseInteger("--device", args.value(), 0, 1023);
    }
    else if (name == "--device-per-rank")
    {
      cl.devicePerRank = true;
    }
    else if (name == "--boxes")
    {
      cl.boxes = emstcli::parseInteger("--boxes", args.value(), 1, 65536);
    }
    else if (name == "--repeat")
    {
      cl.repeat = emstcli::parseInteger("--repeat", args.value(), 1, 1000);
    }
    else if (name == "--check")
    {
      cl.check = true;
    }
    else if (name == "--edges")
    {
      cl.edges = args.value();
    }
    else if (name == "--quiet")
    {
      cl.quiet = true;
    }
    else if (!args.arg().empty() && args.arg()[0] == '-')
    {
      throw UsageError{ "unknown option " + args.arg() };
    }
    else if (!cl.input.empty())
    {
      throw UsageError{ "more than one input file" };
    }
    else
    {
      cl.input = args.arg();
    }
  }
  if (!cl.help && cl.input.empty())
  {
    throw UsageError{ "no input file" };
  }
  return cl;
}

// ---- each rank's share of the file ------------------------------------------------------------

std::uint64_t mix(std::uint64_t z)
{
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Reads points [first, first + count) of an .f32 file through `visit(index, coordinates)`.
class F32Reader
{
public:
  explicit F32Reader(const std::string& path)
    : Path(path)
    , In(path, std::ios::binary)
  {
    if (!this->In)
    {
      throw emst::Error(emst::ErrorCode::InvalidInput, path + ": cannot open");
    }
    unsigned char header[12];
    if (!this->In.read(reinterpret_cast<char*>(header), 12))
    {
      throw emst::Error(emst::ErrorCode::InvalidInput, path + ": truncated .f32 header");
    }
    std::uint64_t n = 0;
    std::uint32_t dim = 0;
    for (int b = 7; b >= 0; --b)
    {
      n = (n << 8) | header[b];
    }
    for (int b = 11; b >= 8; --b)
    {
      dim = (dim << 8) | header[b];
    }
    if (dim != 2 && dim != 3)
    {
      throw emst::Error(emst::ErrorCode::InvalidInput,
        path + ": dimension " + std::to_string(dim) + " in the .f32 header");
    }
    this->In.seekg(0, std::ios::end);
    std::uint64_t const bytes = static_cast<std::uint64_t>(this->In.tellg());
    if (bytes < 12 || (bytes - 12) / (4 * dim) < n)
    {
      throw emst::Error(emst::ErrorCode::InvalidInput, path + ": truncated .f32 file");
    }
    this->Count = n;
    this->Dim = static_cast<int>(dim);
  }
  std::uint64_t count() const { return this->Count; }
  int dimension() const { return this->Dim; }

  template <class Visit>
  void read(std::uint64_t first, std::uint64_t count, Visit&& visit)
  {
    constexpr std::uint64_t kBlock = 1 << 18;
    std::vector<float> block;
    this->In.clear();
    this->In.seekg(static_cast<std::streamoff>(12 + first * 4 * this->Dim));
    for (std::uint64_t done = 0; done < count; done += kBlock)
    {
      std::uint64_t const n = std::min(kBlock, count - done);
      block.resize(n * static_cast<std::uint64_t>(this->Dim));
      if (!this->In.read(reinterpret_cast<char*>(block.data()),
            static_cast<std::streamsize>(block.size() * sizeof(float))))
      {
        throw emst::Error(emst::ErrorCode::InvalidInput, this->Path + ": read error");
      }
      for (std::uint64_t k = 0; k < n; ++k)
      {
        visit(first + done + k, block.data() + k * static_cast<std::uint64_t>(this->Dim));
      }
    }
  }

private:
  std::string Path;
  std::ifstream In;
  std::uint64_t Count = 0;
  int Dim = 3;
};

/// Which rank gets each point: the same answer on every rank, without communication.
class Splitter
{
public:
  /// xOf(k): the x of point k, read for a regular sample of at most 2^16 points (slabs only).
  template <class XOf>
  Splitter(const std::string& split, int ranks, std::uint64_t count, XOf&& xOf)
    : Split(split)
    , Ranks(ranks)
    , Count(count)
  {
    if (split == "slabs")
    {
      // The x quantiles of the sample.
      std::uint64_t const step = std::max<std::uint64_t>(1, this->Count >> 16);
      std::vector<float> sample;
      for (std::uint64_t k = 0; k < this->Count; k += step)
      {
        sample.push_back(xOf(k));
      }
      sample.erase(
        std::remove_if(sample.begin(), sample.end(), [](float x) { return std::isnan(x); }),
        sample.end());
      std::sort(sample.begin(), sample.end());
      for (int r = 1; r < ranks && !sample.empty(); ++r)
      {
        this->Cuts.push_back(
          sample[sample.size() * static_cast<std::size_t>(r) / static_cast<std::size_t>(ranks)]);
      }
    }
  }

  int rankOf(std::uint64_t k, const float* x) const
  {
    if (this->Split == "interleave")
    {
      return static_cast<int>(mix(k) % static_cast<std::uint64_t>(this->Ranks));
    }
    if (this->Split == "slabs")
    {
      return std::isnan(x[0])
        ? 0
        : static_cast<int>(
            std::upper_bound(this->Cuts.begin(), this->Cuts.end(), x[0]) - this->Cuts.begin());
    }
    return static_cast<int>(k * static_cast<std::uint64_t>(this->Ranks) / this->Count);
  }
  /// The file range that can hold rank r's points (all of it unless chunks).
  void range(int r, std::uint64_t& first, std::uint64_t& count) const
  {
    if (this->Split == "chunks")
    {
      first = (this->Count * static_cast<std::uint64_t>(r) + this->Ranks - 1) / this->Ranks;
      std::uint64_t const end =
        (this->Count * static_cast<std::uint64_t>(r + 1) + this->Ranks - 1) / this->Ranks;
      count = end - first;
      return;
    }
    first = 0;
    count = this->Count;
  }

private:
  std::string Split;
  int Ranks;
  std::uint64_t Count;
  std::vector<float> Cuts;
};

struct Share
{
  int dimension = 3;
  std::uint64_t total = 0;
  std::vector<float> xyz; ///< dimension per point
};

Share readShare(const std::string& path, const std::string& split, int rank, int ranks)
{
  Share share;
  std::string const ext = path.size() > 4 ? path.substr(path.size() - 4) : "";
  if (ext != ".f32")
  {
    // Text: every rank reads it all (as float32, like .f32) and keeps its share.
    emst::PointSet const all = emst::readPointFile(path);
    std::size_t const dim = static_cast<std::size_t>(all.dimension);
    auto at = [&all, dim](std::uint64_t k, std::size_t a)
    {
      return all.float32.empty() ? static_cast<float>(all.float64[k * dim + a])
                                 : all.float32[k * dim + a];
    };
    Splitter const splitter(split, ranks, all.count, [&at](std::uint64_t k) { return at(k, 0); });
    share.dimension = all.dimension;
    share.total = all.count;
    for (std::uint64_t k = 0; k < all.count; ++k)
    {
      float const x[3] = { at(k, 0), at(k, 1), dim == 3 ? at(k, 2) : 0.0f };
      if (splitter.rankOf(k, x) == rank)
      {
        share.xyz.insert(share.xyz.end(), x, x + dim);
      }
    }
    return share;
  }
  F32Reader file(path);
  Splitter const splitter(split, ranks, file.count(),
    [&file](std::uint64_t k)
    {
      float x = 0.0f;
      file.read(k, 1, [&x](std::uint64_t, const float* p) { x = p[0]; });
      return x;
    });
  share.dimension = file.dimension();
  share.total = file.count();
  std::uint64_t first = 0, count = 0;
  splitter.range(rank, first, count);
  file.read(first, count,
    [&](std::uint64_t k, const float* x)
    {
      if (splitter.rankOf(k, x) == rank)
      {
        share.xyz.insert(share.xyz.end(), x, x + share.dimension);
      }
    });
  return share;
}

/// Rank 0's serial reference order: every rank's share, in rank order.
Share serialOrder(const std::string& path, const std::string& split, int ranks)
{
  Share all;
  for (int r = 0; r < ranks; ++r)
  {
    Share const s = readShare(path, split, r, ranks);
    all.dimension = s.dimension;
    all.total = s.total;
    all.xyz.insert(all.xyz.end(), s.xyz.begin(), s.xyz.end());
  }
  return all;
}

/// CPU seconds (user + system) so far of this process (MPI ranks) or of this thread (in-process
/// ranks, whose OpenMP loops then run with --threads 1 to be counted).
double cpuSeconds(bool process)
{
  rusage usage{};
  getrusage(process ? RUSAGE_SELF : RUSAGE_THREAD, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
    1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

double maxRssMegabytes()
{
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0; // Linux: kilobytes
}

double phaseMilliseconds(const emst::DistributedStats& stats, const std::string& prefix)
{
  double sum = 0.0;
  for (const emst::PhaseTime& p : stats.phases)
  {
    if (p.name.compare(0, prefix.size(), prefix) == 0)
    {
      sum += p.milliseconds;
    }
  }
  return sum;
}

/// Every rank's text, in rank order, on rank 0.
std::vector<std::string> gatherText(emst::Communicator& comm, const std::string& text)
{
  std::vector<std::uint8_t> send(text.begin(), text.end()), all;
  std::vector<std::size_t> counts;
  comm.allGatherv(send, all, counts);
  std::vector<std::string> lines;
  std::size_t at = 0;
  for (std::size_t c : counts)
  {
    lines.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(at),
      all.begin() + static_cast<std::ptrdiff_t>(at + c));
    at += c;
  }
  return lines;
}

/// One rank's whole job; returns its exit status (the same on every rank).
int runRank(emst::Communicator& comm, const CommandLine& cl, int localRank, bool ownProcess)
{
  int const rank = comm.rank();
  int const ranks = comm.size();
  std::uint64_t failed = 0;
  Share share;
  std::string error;
  try
  {
    share = readShare(cl.input, cl.split, rank, ranks);
  }
  catch (const std::exception& e)
  {
    failed = 1;
    error = e.what();
  }
  comm.allReduce(&failed, 1, emst::Communicator::Op::Max);
  if (failed)
  {
    if (!error.empty())
    {
      std::fprintf(stderr, "emst_distributed: error: rank %d: %s\n", rank, error.c_str());
    }
    return 1;
  }
  emst::PointCloudView view;
  view.data = share.xyz.empty() ? nullptr : share.xyz.data();
  view.scalarType = emst::ScalarType::Float32;
  view.dimension = share.dimension;
  view.count = share.xyz.size() / static_cast<std::size_t>(share.dimension);
  emst::DistributedOptions options;
  options.engine.backend = emst::parseBackend(cl.backend);
  options.engine.cpuThreads = cl.threads;
  options.engine.cudaDevice = cl.devicePerRank ? localRank : cl.device;
  options.engine.keepDeviceMemory = cl.repeat > 1;
  options.boxesPerRank = cl.boxes;

  emst::DistributedResult best;
  double bestTime = 0.0;
  double bestCpu = 0.0; // this rank's CPU seconds in the fastest run
  for (int run = 0; run < cl.repeat; ++run)
  {
    comm.barrier();
    auto const start = std::chrono::steady_clock::now();
    double const cpuStart = cpuSeconds(ownProcess);
    emst::DistributedResult result = emst::computeDistributedEmst(view, comm, options);
    double const cpu = cpuSeconds(ownProcess) - cpuStart;
    double elapsed =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    comm.allReduce(&elapsed, 1, emst::Communicator::Op::Max);
    if (run == 0 || elapsed < bestTime)
    {
      bestTime = elapsed;
      bestCpu = cpu;
      best = std::move(result);
    }
  }
  const emst::DistributedStats& s = best.stats;
  double const rss = maxRssMegabytes();

  std::ostringstream line;
  line.precision(6);
  line << "rank=" << rank << " points=" << s.localPoints << " valid=" << s.localValidPoints
       << " owned_edges=" << best.edges.size() << " remote_points=" << s.remotePoints
       << " local_tree_edges=" << s.localTreeEdges << " certified=" << s.certifiedEdges
       << " fragments=" << s.fragments << " rounds=" << s.rounds
       << " queries_sent=" << s.queriesSent << " queries_received=" << s.queriesReceived
       << " exchanged_points=" << s.exchangedPoints << " bytes_sent=" << s.bytesSent
       << " bytes_received=" << s.bytesReceived
       << " local_tree_ms=" << phaseMilliseconds(s, "local tree")
       << " certification_ms=" << phaseMilliseconds(s, "certification")
       << " rounds_ms=" << phaseMilliseconds(s, "round ") << " total_ms=" << s.milliseconds
       << " engine_peak_mb=" << best.localStats.peakBackendBytes / 1048576.0
       << " host_peak_mb=" << s.peakHostBytes / 1048576.0 << " max_rss_mb=" << rss
       << " cpu_s=" << bestCpu << " local_backend=" << emst::backendName(best.localStats.backend);
  std::vector<std::string> const lines = gatherText(comm, line.str());
  double worst[2] = { static_cast<double>(s.exchangedPoints), rss };
  comm.allReduce(worst, 2, emst::Communicator::Op::Max);
  double cpuTotal = bestCpu;
  comm.allReduce(&cpuTotal, 1, emst::Communicator::Op::Sum);

  if (!cl.edges.empty())
  {
    std::ofstream out(cl.edges + ".rank" + std::to_string(rank) + ".txt");
    char buffer[96];
    for (const emst::DistributedEdge& e : best.edges)
    {
      std::snprintf(buffer, sizeof buffer, "%llu %llu %.17g\n",
        static_cast<unsigned long long>(e.i), static_cast<unsigned long long>(e.j), e.length);
      out << buffer;
    }
  }

  // --check: the serial tree of the same points in global-id order, on rank 0.
  std::string verdict;
  std::uint64_t checkFailed = 0;
  if (cl.check)
  {
    std::vector<emst::Edge> mine;
    bool fits = best.stats.globalPoints < 0xFFFFFFFFu;
    for (const emst::DistributedEdge& e : best.edges)
    {
      mine.push_back(
        emst::Edge{ static_cast<std::uint32_t>(e.i), static_cast<std::uint32_t>(e.j), e.length });
    }
    std::vector<emst::Edge> all = emst::gatherEdgesOnRankZero(comm, mine);
    if (rank == 0)
    {
      Share const whole = serialOrder(cl.input, cl.split, ranks);
      emst::PointCloudView serialView = view;
      serialView.data = whole.xyz.data();
      serialView.count = whole.xyz.size() / static_cast<std::size_t>(whole.dimension);
      emst::Options serialOptions = options.engine;
      emst::Result const serial = emst::computeEmst(serialView, serialOptions);
      std::sort(all.begin(), all.end(),
        [](const emst::Edge& a, const emst::Edge& b) {
          return a.length != b.length ? a.length < b.length : (a.i != b.i ? a.i < b.i : a.j < b.j);
        });
      std::size_t differ = all.size() == serial.edges.size() ? 0 : 1;
      for (std::size_t k = 0; differ == 0 && k < all.size(); ++k)
      {
        const emst::Edge& a = all[k];
        const emst::Edge& b = serial.edges[k];
        differ +=
          a.i != b.i || a.j != b.j || std::memcmp(&a.length, &b.length, sizeof(double)) != 0;
      }
      checkFailed = differ != 0 || !fits;
      std::ostringstream v;
      v.precision(17);
      v << (checkFailed ? " check=FAILED" : " check=ok")
        << " serial_total_weight=" << serial.totalWeight;
      verdict = v.str();
    }
    comm.allReduce(&checkFailed, 1, emst::Communicator::Op::Max);
  }

  if (rank == 0)
  {
    if (!cl.quiet)
    {
      for (const std::string& l : lines)
      {
        std::printf("%s\n", l.c_str());
      }
    }
    char total[64];
    std::snprintf(total, sizeof total, "%.17g", best.totalWeight);
    std::printf("ranks=%d split=%s points=%llu dim=%d edges=%llu total_weight=%s backend=%s "
                "time_ms=%.3f cpu_s=%.3f max_exchanged_points=%.0f max_rss_mb=%.1f%s\n",
      ranks, cl.split.c_str(), static_cast<unsigned long long>(best.stats.globalPoints),
      best.dimension, static_cast<unsigned long long>(best.globalEdges), total, cl.backend.c_str(),
      bestTime, cpuTotal, worst[0], worst[1], verdict.c_str());
    for (const std::string& message : best.messages)
    {
      std::fprintf(stderr, "emst_distributed: rank 0: %s\n", message.c_str());
    }
    std::fflush(stdout);
  }
  return checkFailed ? 1 : 0;
}

} // namespace

int main(int argc, char** argv)
{
  CommandLine cl;
  try
  {
    cl = parseCommandLine(argc, argv);
  }
  catch (const UsageError& e)
  {
    std::fprintf(stderr, "emst_distributed: usage error: %s\n%s", e.message.c_str(), UsageText);
    return 2;
  }
  if (cl.help)
  {
    std::printf("%s\n%s", UsageText, HelpText);
    return 0;
  }
  try
  {
    emst::parseBackend(cl.backend);
  }
  catch (const emst::Error& e)
  {
    std::fprintf(stderr, "emst_distributed: usage error: %s\n%s", e.what(), UsageText);
    return 2;
  }
  int status = 0;
#if defined(EMST_WITH_MPI)
  if (cl.ranks == 0)
  {
    MPI_Init(&argc, &argv);
    int localRank = 0;
    {
      MPI_Comm node;
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
      MPI_Comm_rank(node, &localRank);
      MPI_Comm_free(&node);
    }
    try
    {
      emstcli::MpiCommunicator comm(MPI_COMM_WORLD);
      status = runRank(comm, cl, localRank, true);
    }
    catch (const emst::Error& e)
    {
      // The engine's errors reach every rank alike: rank 0 says it, all end normally.
      int rank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      if (rank == 0)
      {
        std::fprintf(stderr, "emst_distributed: error: %s\n", e.what());
      }
      status = 1;
    }
    catch (const std::exception& e)
    {
      std::fprintf(stderr, "emst_distributed: error: %s\n", e.what());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return status;
  }
#endif
  int const ranks = cl.ranks == 0 ? 1 : cl.ranks;
  std::vector<int> statuses(static_cast<std::size_t>(ranks), 0);
  try
  {
    emst::runInProcess(ranks,
      [&](emst::Communicator& comm)
      { statuses[static_cast<std::size_t>(comm.rank())] = runRank(comm, cl, comm.rank(), false); });
  }
  catch (const std::exception& e)
  {
    std::fprintf(stderr, "emst_distributed: error: %s\n", e.what());
    return 1;
  }
  return *std::max_element(statuses.begin(), statuses.end());
}
