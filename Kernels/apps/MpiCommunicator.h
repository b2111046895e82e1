// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// emst::Communicator over an MPI communicator, for the emst_distributed program (the engine
// library itself includes no MPI header). Exchanges larger than MPI's int counts allow go in
// several rounds of at most Chunk bytes per pair of ranks (Chunk * ranks < 2^31).
#pragma once

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1 // OpenMPI's deprecated C++ bindings are not wanted
#endif
#include <mpi.h>

#include "emst/Distributed.h"

#include <algorithm>
#include <string>
#include <vector>

namespace emstcli
{

class MpiCommunicator : public emst::Communicator
{
public:
  explicit MpiCommunicator(MPI_Comm comm)
    : Comm(comm)
  {
    MPI_Comm_rank(comm, &this->Rank);
    MPI_Comm_size(comm, &this->Size);
    this->Chunk = static_cast<std::uint64_t>(INT32_MAX / std::max(this->Size, 1));
  }

  int rank() const override { return this->Rank; }
  int size() const override { return this->Size; }
  void barrier() override { check(MPI_Barrier(this->Comm), "MPI_Barrier"); }

  void allReduce(double* values, std::size_t count, Op op) override
  {
    check(MPI_Allreduce(MPI_IN_PLACE, values, intCount(count), MPI_DOUBLE, mpiOp(op), this->Comm),
      "MPI_Allreduce");
  }
  void allReduce(std::uint64_t* values, std::size_t count, Op op) override
  {
    check(MPI_Allreduce(MPI_IN_PLACE, values, intCount(count), MPI_UINT64_T, mpiOp(op), this->Comm),
      "MPI_Allreduce");
  }

  void allGatherv(const std::vector<std::uint8_t>& send, std::vector<std::uint8_t>& receive,
    std::vector<std::size_t>& counts) override
  {
    // Every rank sends the same bytes to all: an all-to-all with one buffer repeated.
    std::vector<std::vector<std::uint8_t>> out(static_cast<std::size_t>(this->Size), send);
    std::vector<std::vector<std::uint8_t>> in;
    this->allToAllv(out, in);
    receive.clear();
    counts.assign(static_cast<std::size_t>(this->Size), 0);
    for (int r = 0; r < this->Size; ++r)
    {
      counts[static_cast<std::size_t>(r)] = in[static_cast<std::size_t>(r)].size();
      receive.insert(receive.end(), in[static_cast<std::size_t>(r)].begin(),
        in[static_cast<std::size_t>(r)].end());
    }
  }

  void allToAllv(std::vector<std::vector<std::uint8_t>>& send,
    std::vector<std::vector<std::uint8_t>>& receive) override
  {
    std::size_t const p = static_cast<std::size_t>(this->Size);
    std::vector<std::uint64_t> sendBytes(p), receiveBytes(p);
    for (std::size_t d = 0; d < p; ++d)
    {
      sendBytes[d] = send[d].size();
    }
    check(MPI_Alltoall(
            sendBytes.data(), 1, MPI_UINT64_T, receiveBytes.data(), 1, MPI_UINT64_T, this->Comm),
      "MPI_Alltoall");
    receive.assign(p, {});
    std::uint64_t largest = 0;
    for (std::size_t s = 0; s < p; ++s)
    {
      largest = std::max({ largest, receiveBytes[s], sendBytes[s] });
    }
    check(
      MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_UINT64_T, MPI_MAX, this->Comm), "MPI_Allreduce");
    std::uint64_t const rounds = (largest + this->Chunk - 1) / this->Chunk;
    std::vector<int> sendCounts(p), sendOffsets(p), receiveCounts(p), receiveOffsets(p);
    std::vector<std::uint8_t> packed, unpacked;
    for (std::uint64_t round = 0; round < rounds; ++round)
    {
      std::uint64_t const from = round * this->Chunk;
      packed.clear();
      int total = 0;
      for (std::size_t d = 0; d < p; ++d)
      {
        std::uint64_t const n =
          sendBytes[d] > from ? std::min(this->Chunk, sendBytes[d] - from) : 0;
        sendCounts[d] = static_cast<int>(n);
        sendOffsets[d] = static_cast<int>(packed.size());
        if (n > 0) // send[d] is released once its last bytes are packed
        {
          auto const first = send[d].begin() + static_cast<std::ptrdiff_t>(from);
          packed.insert(packed.end(), first, first + static_cast<std::ptrdiff_t>(n));
          if (from + n == sendBytes[d])
          {
            std::vector<std::uint8_t>().swap(send[d]);
          }
        }
      }
      for (std::size_t s = 0; s < p; ++s)
      {
        std::uint64_t const n =
          receiveBytes[s] > from ? std::min(this->Chunk, receiveBytes[s] - from) : 0;
        receiveCounts[s] = static_cast<int>(n);
        receiveOffsets[s] = total;
        total += static_cast<int>(n);
      }
      unpacked.resize(static_cast<std::size_t>(total));
      check(MPI_Alltoallv(packed.data(), sendCounts.data(), sendOffsets.data(), MPI_BYTE,
              unpacked.data(), receiveCounts.data(), receiveOffsets.data(), MPI_BYTE, this->Comm),
        "MPI_Alltoallv");
      std::vector<std::uint8_t>().swap(packed);
      for (std::size_t s = 0; s < p; ++s)
      {
        if (round == 0) // after the first packing: a single-round exchange is not held twice
        {
          receive[s].resize(receiveBytes[s]);
        }
        std::copy(unpacked.begin() + receiveOffsets[s],
          unpacked.begin() + receiveOffsets[s] + receiveCounts[s],
          receive[s].begin() + static_cast<std::ptrdiff_t>(from));
      }
    }
  }

private:
  static int intCount(std::size_t count)
  {
    if (count > static_cast<std::size_t>(INT32_MAX))
    {
      throw emst::Error(emst::ErrorCode::InvalidInput, "an MPI reduction of more than 2^31 values");
    }
    return static_cast<int>(count);
  }
  static MPI_Op mpiOp(Op op) { return op == Op::Sum ? MPI_SUM : op == Op::Min ? MPI_MIN : MPI_MAX; }
  static void check(int status, const char* what)
  {
    if (status != MPI_SUCCESS)
    {
      throw emst::Error(emst::ErrorCode::Internal, std::string(what) + " failed");
    }
  }

  MPI_Comm Comm;
  int Rank = 0;
  int Size = 1;
  std::uint64_t Chunk = 1; ///< bytes per pair of ranks and round
};

} // namespace emstcli
