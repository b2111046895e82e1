// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Typed collective calls over emst::Communicator: records (trivially copyable structs) in,
// records out, with the bytes counted for the statistics; the home rank of a label; the checks
// that turn a failure on one rank into the same error on every rank.
#pragma once

#include "emst/Distributed.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace emst
{
namespace detail
{

/// Bytes a rank sent and received through Exchange, for DistributedStats.
struct TrafficCount
{
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
};

/// Records of type T per rank: outbox[d] for rank d, inbox[s] from rank s.
template <class T>
using PerRank = std::vector<std::vector<T>>;

class Exchange
{
public:
  Exchange(Communicator& comm, TrafficCount& traffic)
    : Comm(comm)
    , Traffic(traffic)
  {
  }

  Communicator& comm() const { return this->Comm; }
  int rank() const { return this->Comm.rank(); }
  int size() const { return this->Comm.size(); }

  template <class T>
  PerRank<T> outbox() const
  {
    return PerRank<T>(static_cast<std::size_t>(this->size()));
  }

  /// One all-to-all: outbox[d] goes to rank d; returns inbox[s], the records rank s sent here.
  /// The outbox is taken (move it in): each record list is freed once packed, so that a large
  /// exchange is never held three times.
  template <class T>
  PerRank<T> allToAll(PerRank<T> outbox)
  {
    static_assert(std::is_trivially_copyable<T>::value, "records travel as bytes");
    std::size_t const p = static_cast<std::size_t>(this->size());
    std::vector<std::vector<std::uint8_t>> send(p);
    for (std::size_t d = 0; d < p; ++d)
    {
      send[d].resize(outbox[d].size() * sizeof(T));
      if (!outbox[d].empty())
      {
        std::memcpy(send[d].data(), outbox[d].data(), send[d].size());
      }
      std::vector<T>().swap(outbox[d]);
      if (static_cast<int>(d) != this->rank())
      {
        this->Traffic.sent += send[d].size();
      }
    }
    std::vector<std::vector<std::uint8_t>> receive;
    this->Comm.allToAllv(send, receive);
    send.clear();
    PerRank<T> inbox(p);
    for (std::size_t s = 0; s < p; ++s)
    {
      inbox[s] = fromBytes<T>(receive[s]);
      if (static_cast<int>(s) != this->rank())
      {
        this->Traffic.received += receive[s].size();
      }
      std::vector<std::uint8_t>().swap(receive[s]);
    }
    return inbox;
  }

  /// Every rank's records, in rank order (each rank's own order kept).
  template <class T>
  std::vector<T> allGather(
    const std::vector<T>& mine, std::vector<std::size_t>* countOfRank = nullptr)
  {
    static_assert(std::is_trivially_copyable<T>::value, "records travel as bytes");
    std::vector<std::uint8_t> send(mine.size() * sizeof(T));
    if (!mine.empty())
    {
      std::memcpy(send.data(), mine.data(), send.size());
    }
    std::vector<std::uint8_t> receive;
    std::vector<std::size_t> counts;
    this->Comm.allGatherv(send, receive, counts);
    this->Traffic.sent += send.size() * static_cast<std::size_t>(this->size() - 1);
    this->Traffic.received += receive.size() - send.size();
    if (countOfRank)
    {
      countOfRank->resize(counts.size());
      for (std::size_t r = 0; r < counts.size(); ++r)
      {
        (*countOfRank)[r] = counts[r] / sizeof(T);
      }
    }
    return fromBytes<T>(receive);
  }

  std::uint64_t sum(std::uint64_t value)
  {
    this->Comm.allReduce(&value, 1, Communicator::Op::Sum);
    return value;
  }
  std::uint64_t max(std::uint64_t value)
  {
    this->Comm.allReduce(&value, 1, Communicator::Op::Max);
    return value;
  }

private:
  template <class T>
  static std::vector<T> fromBytes(const std::vector<std::uint8_t>& bytes)
  {
    if (bytes.size() % sizeof(T) != 0)
    {
      throw Error(ErrorCode::Internal,
        "a message of " + std::to_string(bytes.size()) + " bytes is not a whole number of " +
          std::to_string(sizeof(T)) + "-byte records");
    }
    std::vector<T> out(bytes.size() / sizeof(T));
    if (!out.empty())
    {
      std::memcpy(static_cast<void*>(out.data()), bytes.data(), bytes.size());
    }
    return out;
  }

  Communicator& Comm;
  TrafficCount& Traffic;
};

/// The records of every inbox in one list, in rank order; each inbox is freed once copied, so that
/// the records are never held more than twice.
template <class T>
std::vector<T> concatenate(PerRank<T> inbox)
{
  std::size_t total = 0;
  for (const std::vector<T>& from : inbox)
  {
    total += from.size();
  }
  std::vector<T> all;
  all.reserve(total);
  for (std::vector<T>& from : inbox)
  {
    all.insert(all.end(), from.begin(), from.end());
    std::vector<T>().swap(from);
  }
  return all;
}

/// The rank that keeps the record of component `label` (its "home"): a mixed hash, so that the
/// smallest ids (a component's label is its smallest global id) do not all land on rank 0.
inline int homeOf(std::uint64_t label, int ranks)
{
  std::uint64_t z = label + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<int>(z % static_cast<std::uint64_t>(ranks));
}

/// A failure that one rank may meet alone (bad input, the local engine) made collective: every
/// rank calls agree() at the same point; if any rank failed, all throw the same code, the failed
/// ranks with their own message, the others with the first failed rank's, naming it.
class Agreement
{
public:
  explicit Agreement(Communicator& comm)
    : Comm(comm)
  {
  }
  void fail(const Error& error)
  {
    if (!this->Failed)
    {
      this->Failed = true;
      this->Code = error.code();
      this->Message = error.what();
    }
  }
  void agree()
  {
    std::uint64_t const none = static_cast<std::uint64_t>(this->Comm.size());
    std::uint64_t first = this->Failed ? static_cast<std::uint64_t>(this->Comm.rank()) : none;
    this->Comm.allReduce(&first, 1, Communicator::Op::Min);
    if (first == none)
    {
      return;
    }
    // The first failed rank tells the others its code and message.
    bool const teller = this->Failed && static_cast<std::uint64_t>(this->Comm.rank()) == first;
    std::vector<std::uint8_t> send;
    if (teller)
    {
      send.resize(1 + this->Message.size());
      send[0] = static_cast<std::uint8_t>(this->Code);
      std::memcpy(send.data() + 1, this->Message.data(), this->Message.size());
    }
    std::vector<std::uint8_t> told;
    std::vector<std::size_t> counts;
    this->Comm.allGatherv(send, told, counts);
    if (this->Failed)
    {
      throw Error(this->Code, this->Message);
    }
    if (told.empty())
    {
      throw Error(ErrorCode::Internal, "rank " + std::to_string(first) + " failed");
    }
    throw Error(static_cast<ErrorCode>(told[0]),
      "rank " + std::to_string(first) + ": " + std::string(told.begin() + 1, told.end()));
  }

private:
  Communicator& Comm;
  bool Failed = false;
  ErrorCode Code = ErrorCode::Internal;
  std::string Message;
};

/// Whether the ranks give global ids (some rank with points does; a rank without points has
/// none to give). Throws InvalidInput on every rank when some ranks with points give ids and
/// others do not.
inline bool agreeOnGivenIds(Communicator& comm, std::size_t count, const std::uint64_t* ids)
{
  // [0]: ranks with points and ids, [1]: ranks with points and no ids.
  std::uint64_t votes[2] = { count > 0 && ids ? 1u : 0u, count > 0 && !ids ? 1u : 0u };
  comm.allReduce(votes, 2, Communicator::Op::Sum);
  if (votes[0] > 0 && votes[1] > 0)
  {
    throw Error(ErrorCode::InvalidInput,
      "global ids are given on " + std::to_string(votes[0]) + " rank(s) and not on " +
        std::to_string(votes[1]) + " other(s): give them on every rank or on none");
  }
  return votes[0] > 0;
}

} // namespace detail
} // namespace emst
