// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Public interface of the EMST engine: exact Euclidean minimum spanning trees of 2D/3D point
// clouds, on a CUDA GPU or on the CPU, from one algorithm source. No VTK, Thrust or CUDA type
// appears here: the filters, the command-line program and the tests build with the host compiler.
//
// Reference: Qiao & Creput 2021 (grid + component-based nearest-neighbour search + Boruvka),
// Prokopenko et al. 2022 (single-tree Boruvka EMST, component pruning), in ../shared/papers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace emst
{

/// Which engine runs. Auto uses the GPU when a usable CUDA device exists (probed lazily, on the
/// first call), else the CPU; Stats::backend and Result::messages say which one ran and why.
enum class Backend
{
  Auto,
  Cuda,
  Cpu
};

enum class ScalarType
{
  Float32,
  Float64
};

/// Where PointCloudView::data lives. Device pointers are accepted by the CUDA backend only
/// (for callers whose points are already on the GPU; no upload is then timed).
enum class MemorySpace
{
  Host,
  Device
};

/// A borrowed, read-only view of `count` points. Point k has coordinates
/// data[k*stride + 0 .. k*stride + dimension-1] (in scalars, not bytes).
struct PointCloudView
{
  const void* data = nullptr;
  ScalarType scalarType = ScalarType::Float32;
  int dimension = 3;      ///< 2 or 3
  std::size_t count = 0;  ///< number of points, below 2^32 - 1
  std::size_t stride = 0; ///< scalars between consecutive points; 0 means `dimension`
  MemorySpace memory = MemorySpace::Host;
};

/// One tree edge between input points i < j (indices into the input), with its Euclidean length
/// computed in double precision from the input coordinates, scaled before squaring as hypot
/// does: with d the coordinate differences (b - a, each rounded to double) and e = floor(log2(max
/// |d|)), length = 2^e * sqrt((u0*u0 + u1*u1) + u2*u2) with u = d * 2^-e, every operation rounded
/// to double (no FMA), the same bits on every backend. No square overflows or underflows, so the
/// length has double precision (within about an ulp) for any finite input wherever it is a normal
/// double; a length below DBL_MIN is rounded once more to a subnormal; a length above DBL_MAX
/// (points more than 1.8e308 apart, at most 1.8e308 per axis) is +inf, with a message in
/// Result::messages. Where the unscaled sqrt(dx*dx + dy*dy + dz*dz) neither overflows nor
/// underflows it gives the same bits.
struct Edge
{
  std::uint32_t i = 0;
  std::uint32_t j = 0;
  double length = 0.0;
};

enum class ErrorCode
{
  InvalidInput,      ///< null data, bad dimension, too many points, ...
  OutOfMemory,       ///< the backend could not allocate its working memory
  DeviceUnavailable, ///< CUDA requested but not compiled in, no device, or no driver
  DeviceError,       ///< a CUDA call or kernel failed
  Cancelled,         ///< the progress callback asked to stop
  Internal           ///< a broken invariant: a bug, please report it
};

/// Every failure of the engine is reported as an emst::Error (never a crash or a hang).
class Error : public std::runtime_error
{
public:
  Error(ErrorCode code, const std::string& message)
    : std::runtime_error(message)
    , Code(code)
  {
  }
  ErrorCode code() const noexcept { return this->Code; }

private:
  ErrorCode Code;
};

/// Called on the calling thread between steps with the fraction done (0..1, non-decreasing) and
/// the name of the step about to run; a last call reports 1.0 and "done". Returning false
/// cancels, at any call: computeEmst then throws Error(Cancelled).
using ProgressCallback = std::function<bool(double fraction, const char* step)>;

/// The most CPU threads Options::cpuThreads may ask for: far more than the hardware threads of any
/// machine today, and far below the counts at which the OpenMP runtime fails (libgomp crashes
/// creating 100000 threads).
constexpr int kMaxCpuThreads = 4096;

struct Options
{
  Backend backend = Backend::Auto;
  ProgressCallback progress;
  /// CPU backend threads: 0 = the OpenMP default, else 1 to kMaxCpuThreads (others are
  /// Error(InvalidInput), whatever the backend).
  int cpuThreads = 0;
  int cudaDevice = 0;            ///< CUDA device ordinal
  bool keepDeviceMemory = false; ///< keep the GPU memory pool between calls (benchmarks)
};

struct PhaseTime
{
  std::string name;
  double milliseconds = 0.0;
};

struct Stats
{
  Backend backend = Backend::Cpu; ///< the backend that ran (never Auto)
  std::string deviceName;         ///< GPU name, or "CPU (N threads)"
  int rounds = 0;                 ///< Boruvka rounds
  std::size_t inputPoints = 0;
  std::size_t validPoints = 0;      ///< points with finite coordinates
  std::size_t nonFinitePoints = 0;  ///< left out of the tree (no edges)
  std::size_t duplicatePoints = 0;  ///< extra copies of identical points (joined by 0-length edges)
  std::vector<PhaseTime> phases;    ///< compute phases, in order
  double computeMilliseconds = 0.0; ///< points in backend memory -> sorted edges in backend memory
  double uploadMilliseconds = 0.0;  ///< host -> device copy of the points (CUDA, host input)
  double downloadMilliseconds = 0.0; ///< device -> host copy of the edges (CUDA)
  std::size_t peakBackendBytes = 0;  ///< peak working memory of the engine in backend memory
                                     ///< (device memory for CUDA, heap for CPU), input excluded
};

struct Result
{
  /// validPoints - 1 edges (none for fewer than two valid points), ordered totally by
  /// (length, i, j): the same list, bit for bit, on every backend.
  std::vector<Edge> edges;
  /// Compensated sum of the lengths, in edge order; +inf (never NaN) when an edge is +inf or the
  /// sum exceeds DBL_MAX, with a message.
  double totalWeight = 0.0;
  Stats stats;
  std::vector<std::string> messages; ///< warnings and notes (left-out points, CPU fallback, ...)
};

/// Computes the Euclidean minimum spanning tree of the finite points of `points`.
///
/// Errors (emst::Error): InvalidInput for a null `data` with count > 0 (null with count 0 is an
/// empty cloud), a dimension other than 2 or 3, a stride below the dimension, 2^32-1 points or
/// more, a coordinate range that overflows double (e.g. points at -1e308 and +1e308), device
/// memory given to the CPU backend, or a cpuThreads outside 0 to kMaxCpuThreads; DeviceUnavailable
/// when CUDA is asked for (Backend::Cuda or device memory) and cannot run; OutOfMemory,
/// DeviceError, Cancelled as their names say. Backend::Auto turns OutOfMemory and DeviceError of
/// the GPU into a run on the CPU, with a message.
///
/// "Exact" means: the edge set is the minimum spanning tree under the order below, whose key is
/// the squared distance of the input coordinates in double precision: the EMST of the points
/// as given, to double rounding (1e-15 relative), whatever their offset, range or density.
///
/// The tree is the unique MST under the total order (key, min(i, j), max(i, j)) on edges, where
///   key = ((dx*dx + dy*dy) + dz*dz) with d = ((double)a - (double)b) * s,
/// every operation rounded to double (no FMA), a and b the two points' coordinates on that axis
/// and s = 2^min(62-e, 960) a power of two from the largest extent E = max(hi - lo) over the
/// finite points (e = ilogb(E); s = 1 when E = 0). The scaling is exact, so the order is that of
/// the squared distances, and the squares neither overflow nor underflow for any input range.
/// (The search prunes with float32 distances of coordinates shifted to the bounding box, with
/// bounds on their rounding wide enough that the keys alone decide.)
/// It does not depend on the backend, the thread count or the run.
/// Throws emst::Error.
Result computeEmst(const PointCloudView& points, const Options& options = {});

/// The length of the segment between the points a and b (`dimension` = 2 or 3 doubles each),
/// computed exactly as Edge::length is (scaled before squaring): for callers that need the length
/// of an edge the engine did not compute (a tree read back without its lengths).
double edgeLength(const double* a, const double* b, int dimension) noexcept;

/// True when this build contains the CUDA backend.
bool cudaBackendCompiled() noexcept;

/// True when the CUDA backend is compiled in and a usable device (sm_75 or newer) and driver are
/// present; otherwise false, with the reason in *reason when given.
bool cudaDeviceAvailable(std::string* reason = nullptr);

const char* backendName(Backend backend) noexcept;

/// "auto", "cuda"/"gpu", "cpu" (any case) -> Backend; anything else throws Error(InvalidInput).
Backend parseBackend(const std::string& name);

} // namespace emst
