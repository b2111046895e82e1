// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// In-process ranks: one thread per rank, collective calls through shared slots and a barrier.
// Each call publishes a pointer to this rank's contribution, waits for every rank, reads the
// others', and waits again before returning, so that no rank reuses its buffers while another
// still reads them.
#include "emst/Distributed.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace emst
{
namespace
{

/// Thrown in the ranks that wait while another rank has failed: not the error to report.
class RankAborted : public Error
{
public:
  RankAborted()
    : Error(ErrorCode::Internal, "another in-process rank failed")
  {
  }
};

struct SharedState
{
  explicit SharedState(int ranks)
    : Ranks(ranks)
    , Slot(static_cast<std::size_t>(ranks), nullptr)
  {
  }

  void barrier()
  {
    std::unique_lock<std::mutex> lock(this->Mutex);
    if (this->Aborted)
    {
      throw RankAborted();
    }
    std::uint64_t const generation = this->Generation;
    if (++this->Arrived == this->Ranks)
    {
      this->Arrived = 0;
      ++this->Generation;
      this->Changed.notify_all();
      return;
    }
    this->Changed.wait(lock, [&] { return this->Generation != generation || this->Aborted; });
    if (this->Generation == generation)
    {
      throw RankAborted();
    }
  }

  void abort()
  {
    std::lock_guard<std::mutex> lock(this->Mutex);
    this->Aborted = true;
    this->Changed.notify_all();
  }

  int const Ranks;
  std::vector<const void*> Slot; ///< [Ranks] each rank's contribution to the current call
  std::mutex Mutex;
  std::condition_variable Changed;
  int Arrived = 0;
  std::uint64_t Generation = 0;
  bool Aborted = false;
};

template <class T>
void reduce(T* values, std::size_t count, Communicator::Op op, int me, SharedState& shared)
{
  shared.Slot[static_cast<std::size_t>(me)] = values;
  shared.barrier();
  std::vector<T> result(values, values + count);
  for (int r = 0; r < shared.Ranks; ++r)
  {
    if (r == me)
    {
      continue;
    }
    const T* other = static_cast<const T*>(shared.Slot[static_cast<std::size_t>(r)]);
    for (std::size_t k = 0; k < count; ++k)
    {
      switch (op)
      {
        case Communicator::Op::Sum:
          result[k] += other[k];
          break;
        case Communicator::Op::Min:
          result[k] = std::min(result[k], other[k]);
          break;
        case Communicator::Op::Max:
          result[k] = std::max(result[k], other[k]);
          break;
      }
    }
  }
  shared.barrier();
  std::copy(result.begin(), result.end(), values);
}

class InProcessCommunicator : public Communicator
{
public:
  InProcessCommunicator(int rank, SharedState& shared)
    : Rank(rank)
    , Shared(shared)
  {
  }
  int rank() const override { return this->Rank; }
  int size() const override { return this->Shared.Ranks; }
  void barrier() override { this->Shared.barrier(); }

  // A sum of doubles in rank order, whatever rank computes it: every rank gets the same bits.
  void allReduce(double* values, std::size_t count, Op op) override
  {
    if (op != Op::Sum)
    {
      reduce(values, count, op, this->Rank, this->Shared);
      return;
    }
    this->Shared.Slot[static_cast<std::size_t>(this->Rank)] = values;
    this->Shared.barrier();
    std::vector<double> result(count, 0.0);
    for (int r = 0; r < this->Shared.Ranks; ++r)
    {
      const double* other =
        static_cast<const double*>(this->Shared.Slot[static_cast<std::size_t>(r)]);
      for (std::size_t k = 0; k < count; ++k)
      {
        result[k] = r == 0 ? other[k] : result[k] + other[k];
      }
    }
    this->Shared.barrier();
    std::copy(result.begin(), result.end(), values);
  }
  void allReduce(std::uint64_t* values, std::size_t count, Op op) override
  {
    reduce(values, count, op, this->Rank, this->Shared);
  }

  void allGatherv(const std::vector<std::uint8_t>& send, std::vector<std::uint8_t>& receive,
    std::vector<std::size_t>& counts) override
  {
    this->Shared.Slot[static_cast<std::size_t>(this->Rank)] = &send;
    this->Shared.barrier();
    receive.clear();
    counts.assign(static_cast<std::size_t>(this->Shared.Ranks), 0);
    for (int r = 0; r < this->Shared.Ranks; ++r)
    {
      const auto* other = static_cast<const std::vector<std::uint8_t>*>(
        this->Shared.Slot[static_cast<std::size_t>(r)]);
      counts[static_cast<std::size_t>(r)] = other->size();
      receive.insert(receive.end(), other->begin(), other->end());
    }
    this->Shared.barrier();
  }

  void allToAllv(std::vector<std::vector<std::uint8_t>>& send,
    std::vector<std::vector<std::uint8_t>>& receive) override
  {
    if (send.size() != static_cast<std::size_t>(this->Shared.Ranks))
    {
      throw Error(ErrorCode::Internal, "allToAllv needs one buffer per rank");
    }
    this->Shared.Slot[static_cast<std::size_t>(this->Rank)] = &send;
    this->Shared.barrier();
    receive.assign(static_cast<std::size_t>(this->Shared.Ranks), {});
    for (int r = 0; r < this->Shared.Ranks; ++r)
    {
      const auto* other = static_cast<const std::vector<std::vector<std::uint8_t>>*>(
        this->Shared.Slot[static_cast<std::size_t>(r)]);
      receive[static_cast<std::size_t>(r)] = (*other)[static_cast<std::size_t>(this->Rank)];
    }
    this->Shared.barrier();
    send.assign(send.size(), {}); // every rank has its copy
  }

private:
  int Rank;
  SharedState& Shared;
};

} // namespace

void runInProcess(int ranks, const std::function<void(Communicator&)>& body)
{
  if (ranks < 1)
  {
    throw Error(ErrorCode::InvalidInput, "runInProcess needs at least one rank");
  }
  SharedState shared(ranks);
  std::mutex failureMutex;
  std::exception_ptr failure;
  bool failureIsAbort = true;
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r)
  {
    threads.emplace_back(
      [&, r]
      {
        try
        {
          InProcessCommunicator comm(r, shared);
          body(comm);
        }
        catch (...)
        {
          bool aborted = false;
          try
          {
            throw;
          }
          catch (const RankAborted&)
          {
            aborted = true;
          }
          catch (...)
          {
          }
          {
            std::lock_guard<std::mutex> lock(failureMutex);
            // The first real error wins over the aborts it caused in the other ranks.
            if (!failure || (failureIsAbort && !aborted))
            {
              failure = std::current_exception();
              failureIsAbort = aborted;
            }
          }
          shared.abort();
        }
      });
  }
  for (std::thread& thread : threads)
  {
    thread.join();
  }
  if (failure)
  {
    std::rethrow_exception(failure);
  }
}

} // namespace emst
