// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// (key, value) pairs into (key, value) order, where a key is a 64-bit word (a Morton code, a
// length's bits) with fewer significant bits: one radix sort by the key's top bits, a pass
// that puts each short run of keys equal in those bits in order in place, and the long runs
// gathered and sorted together. Against a radix sort by every bit, the passes the lower bits
// would take are saved; the runs they would have ordered are rare where the kept bits resolve
// the keys (10^7 3D codes: 86 uniform points in runs with 40 of 63 bits, 0.7% of cosmo's with
// 48) and exact ties (duplicate points, equal lengths) get their value order in the same runs.
// Used by the set-up's sort by code (Frame.h). Below it, sortItemsByKey: items sorted by a
// comparison given a 32-bit key of each that the comparison refines, a radix sort of (key,
// slot) pairs, the items gathered, and the runs of equal keys ordered the same way (the
// output's edges by length and pair, OutputOrder.h).
#pragma once

#include "base/Algorithms.h"
#include "base/Buffer.h"
#include "base/Index.h"

#include <thrust/functional.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace emst
{
namespace detail
{

/// Runs of keys equal in the sorted bits up to this long are put in order in place, each by one
/// thread (SortShortRuns); longer ones (lattices, where one length may hold most of the list;
/// clusters far denser than the box) are gathered and sorted together (InLongRun). Measured
/// on the output's lengths (H100): with 32, a thread's insertion sort of a long short run was
/// the whole pass's time on small sets (up to 0.17 ms more on lidar_lonestar519k, whose runs of
/// 9 to 32 hold 0.3 million edges); with 32 or 16 in registers, the pass's register count
/// slowed it on large ones. On 10^7 uniform points in 2D, 0.5% of the tied edges are in runs
/// longer than 8.
constexpr int kShortRun = 8;

/// The bits of a key that the radix sort orders: those at and above `lowBit`.
struct SortedBits
{
  int lowBit;
  EMST_HD EMST_FORCEINLINE bool same(std::uint64_t a, std::uint64_t b) const
  {
    return (a >> lowBit) == (b >> lowBit);
  }
};

/// After the radix sort: whether pair s lies in a run of more than kShortRun keys equal in the
/// sorted bits (counting at most kShortRun + 1 of them): the one test of a long run, which
/// SortShortRuns leaves to the gathered sort. Only there can the order still be wrong once
/// SortShortRuns has run.
template <class K = std::uint64_t>
struct InLongRun
{
  const K* keys; ///< [count], radix-sorted
  std::size_t count;
  SortedBits bits;
  EMST_HD bool operator()(std::size_t s) const
  {
    K const key = keys[s];
    int same = 1;
    for (std::size_t k = s; k > 0 && same <= kShortRun && bits.same(keys[k - 1], key); --k)
    {
      ++same;
    }
    for (std::size_t k = s + 1; k < count && same <= kShortRun && bits.same(keys[k], key); ++k)
    {
      ++same;
    }
    return same > kShortRun;
  }
};

/// InLongRun of every pair, as bytes (the gathered sort's select reads a byte a pair instead of
/// walking the run: CUB's select calls its predicate for one item after the other in a thread).
struct MarkLongRuns
{
  InLongRun<> longRun;
  std::uint8_t* inLongRun; ///< [count]
  EMST_HD void operator()(std::size_t s) const { inLongRun[s] = longRun(s) ? 1 : 0; }
};

struct IsMarked
{
  const std::uint8_t* mark;
  EMST_HD bool operator()(std::size_t s) const { return mark[s] != 0; }
};

/// Knuth's network of 19 comparators for eight places, order(a, b) (a < b) putting places a and
/// b in order: one function for the two short-run sorts below.
template <class Order>
EMST_HD EMST_FORCEINLINE void sortEightPlaces(const Order& order)
{
  order(0, 2);
  order(1, 3);
  order(4, 6);
  order(5, 7);
  order(0, 4);
  order(1, 5);
  order(2, 6);
  order(3, 7);
  order(0, 1);
  order(2, 3);
  order(4, 5);
  order(6, 7);
  order(2, 4);
  order(3, 5);
  order(1, 4);
  order(3, 6);
  order(1, 2);
  order(3, 4);
  order(5, 6);
}

/// f(i) for each place i < size of a short run (size <= kShortRun), unrolled on the GPU so that
/// the places stay in registers.
template <class F>
EMST_HD EMST_FORCEINLINE void forPlacesOfRun(int size, const F& f)
{
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int i = 0; i < kShortRun; ++i)
  {
    if (i < size)
    {
      f(i);
    }
  }
}

/// One comparator of SortShortRuns' network: (key, value) order.
template <class V>
EMST_HD EMST_FORCEINLINE void orderTwo(
  std::uint64_t& keyA, V& valueA, std::uint64_t& keyB, V& valueB)
{
  if (keyA > keyB || (keyA == keyB && valueA > valueB))
  {
    std::uint64_t const key = keyA;
    keyA = keyB;
    keyB = key;
    V const value = valueA;
    valueA = valueB;
    valueB = value;
  }
}

/// After the radix sort: the thread at the start of a run of two to kShortRun keys equal in the
/// sorted bits puts the run in (key, value) order. The run's keys and the one after it are
/// loaded at once (independent loads: a walk along the run waited for each in turn) and its
/// pairs sorted in registers by a network of 19 comparators (Knuth's for eight), the places
/// past the run holding a key above every key (keys are below 2^63). Equal pairs are
/// indistinguishable, so any correct order is the order.
template <class V>
struct SortShortRuns
{
  std::uint64_t* keys; ///< [count], radix-sorted; each short run in order on return
  V* values;           ///< [count]
  std::size_t count;
  SortedBits bits;
  EMST_HD void operator()(std::size_t s) const
  {
    static_assert(kShortRun == 8, "the network below sorts eight pairs");
    std::uint64_t const first = keys[s];
    if ((s > 0 && bits.same(keys[s - 1], first)) || s + 1 >= count ||
      !bits.same(keys[s + 1], first))
    {
      return; // not the first of a run of two or more
    }
    constexpr std::uint64_t kAbove = ~std::uint64_t(0);
    std::uint64_t key[kShortRun];
    V value[kShortRun];
    key[0] = first;
    int size = 1;
    bool open = true;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int i = 1; i <= kShortRun; ++i)
    {
      std::uint64_t const next = s + i < count ? keys[s + i] : kAbove;
      open = open && bits.same(next, first);
      size += open ? 1 : 0;
      if (i < kShortRun)
      {
        key[i] = next;
      }
    }
    if (size > kShortRun)
    {
      return; // a long run: gathered and sorted with the others (InLongRun)
    }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int i = 0; i < kShortRun; ++i)
    {
      if (i < size)
      {
        value[i] = values[s + i];
      }
      else
      {
        key[i] = kAbove;
        value[i] = static_cast<V>(~V(0));
      }
    }
    sortEightPlaces([&](int a, int b) { orderTwo(key[a], value[a], key[b], value[b]); });
    forPlacesOfRun(size,
      [&](int i)
      {
        keys[s + i] = key[i];
        values[s + i] = value[i];
      });
  }
};

/// A pair of a long run, gathered.
template <class V>
struct KeyedValue
{
  std::uint64_t key;
  V value;
};

struct KeyedValueLess
{
  template <class V>
  EMST_HD bool operator()(const KeyedValue<V>& a, const KeyedValue<V>& b) const
  {
    return a.key != b.key ? a.key < b.key : a.value < b.value;
  }
};

template <class V>
struct GatherRuns
{
  const Index* slotOfTied;   ///< [t]
  const std::uint64_t* keys; ///< [n]
  const V* values;           ///< [n]
  KeyedValue<V>* tied;       ///< [t]
  EMST_HD void operator()(std::size_t t) const
  {
    tied[t] = KeyedValue<V>{ keys[slotOfTied[t]], values[slotOfTied[t]] };
  }
};

/// A long run keeps its slots (its sorted bits are the major key): its pairs, in order, go back
/// there.
template <class V>
struct ScatterRuns
{
  const Index* slotOfTied;   ///< [t]
  const KeyedValue<V>* tied; ///< [t], sorted
  std::uint64_t* keys;       ///< [n]
  V* values;                 ///< [n]
  EMST_HD void operator()(std::size_t t) const
  {
    keys[slotOfTied[t]] = tied[t].key;
    values[slotOfTied[t]] = tied[t].value;
  }
};

/// sortPairs's second count, over the sorted keys: none.
struct CountsNothing
{
  const std::uint64_t* keys;
  std::size_t count;
  EMST_HD bool operator()(std::size_t) const { return false; }
};

/// The long runs' count in the high word, the caller's in the low one (both below 2^32: n
/// is), in one pass and one read back.
template <class Also>
struct LongRunsAndAlso
{
  InLongRun<> longRun;
  Also also;
  EMST_HD unsigned long long operator()(std::size_t s) const
  {
    return (longRun(s) ? 1ull << 32 : 0ull) + (also(s) ? 1ull : 0ull);
  }
};

/// Sorts the pairs (keys[i], values[i]) into (key, value) order, each key below 2^keyBits
/// (keyBits <= 63: SortShortRuns pads with a key above them all): a stable sort by key when the
/// values increase on entry. The radix sort orders the top
/// `radixBits` of those bits (Exec::sortPairsByBits, whose result may be in other room: the
/// Buffers are swapped; a backend may sort more bits, the CPU sorts them all), the runs of keys
/// equal in the bits it sorted are ordered as above. Where memory comes
/// first (Exec::savesMemory) and most pairs are in long runs, the whole list is sorted again, by
/// value and then stably by every key bit, which takes less room than the runs gathered (the
/// sorts' second copy against a slot, a gathered pair and the merge sort's copy of it).
/// Returns how many sorted pairs s have Also{ keys, n }(s) (0 for CountsNothing), counted in the
/// same pass as the long runs when there are none (the set-up's duplicates: one wait less).
template <class Also = CountsNothing, class Exec, class V>
std::size_t sortPairs(Exec& exec, Buffer<std::uint64_t, Exec>& keys, Buffer<V, Exec>& values,
  int keyBits, int radixBits)
{
  std::size_t const n = keys.size();
  if (n < 2)
  {
    return 0;
  }
  SortedBits const bits{ exec.sortPairsByBits(
    keys, values, keyBits > radixBits ? keyBits - radixBits : 0, keyBits) };
  exec.forEach(n, SortShortRuns<V>{ keys.data(), values.data(), n, bits });
  // Counted apart: one atomic a warp where most pairs are in long runs (the output of cosmo
  // 1e7 2D) took 0.35 ms more than a count of its own (H100).
  unsigned long long const counts = exec.transformReduce(n,
    LongRunsAndAlso<Also>{ InLongRun<>{ keys.data(), n, bits }, Also{ keys.data(), n } }, 0ull,
    thrust::plus<unsigned long long>{});
  std::size_t const tied = static_cast<std::size_t>(counts >> 32);
  if (tied == 0)
  {
    return static_cast<std::size_t>(counts & 0xFFFFFFFFull);
  }
  if (exec.savesMemory() &&
    (sizeof(Index) + 2 * sizeof(KeyedValue<V>)) * tied > (sizeof(std::uint64_t) + sizeof(V)) * n)
  {
    exec.sortPairsByBits(values, keys, 0, static_cast<int>(8 * sizeof(V)));
    exec.sortPairsByBits(keys, values, 0, keyBits);
  }
  else
  {
    Buffer<Index, Exec> slotOfTied(exec, tied);
    {
      Buffer<std::uint8_t, Exec> inLongRun(exec, n);
      exec.forEach(n, MarkLongRuns{ InLongRun<>{ keys.data(), n, bits }, inLongRun.data() });
      exec.selectIndices(n, slotOfTied.data(), IsMarked{ inLongRun.data() });
    }
    Buffer<KeyedValue<V>, Exec> run(exec, tied);
    exec.forEach(tied, GatherRuns<V>{ slotOfTied.data(), keys.data(), values.data(), run.data() });
    exec.sortByLess(run, KeyedValueLess{}); // distinct pairs: no two equal
    exec.forEach(tied, ScatterRuns<V>{ slotOfTied.data(), run.data(), keys.data(), values.data() });
  }
  if constexpr (std::is_same_v<Also, CountsNothing>)
  {
    return 0;
  }
  else
  {
    return exec.count(n, Also{ keys.data(), n }); // the runs reordered: counted again
  }
}

/// items[slots[s]] gathered into place s: the items in the radix sort's order, a long run's.
template <class T>
struct GatherItems
{
  const Index* slotOf; ///< [count]
  const T* from;
  T* to; ///< [count]
  EMST_HD void operator()(std::size_t s) const { to[s] = from[slotOf[s]]; }
};

/// A long run's sorted items back to their slots.
template <class T>
struct ScatterItems
{
  const Index* slotOf; ///< [count]
  const T* from;       ///< [count]
  T* to;
  EMST_HD void operator()(std::size_t s) const { to[slotOf[s]] = from[s]; }
};

/// After sortItemsByKey's radix sort and gather: the thread at the start of a run of two to
/// kShortRun equal keys puts the run's items in `less` order, in registers, by the network of
/// SortShortRuns (the places past the run count as above every item: a comparator with one of
/// them never swaps, so they stay where they are); every item's byte says whether it is in a
/// longer run (gathered after it), in the same pass. H200, cosmo 1e7 3D: the marks in a pass of
/// their own took 49 us more; the long runs' count in a reduction of this pass 15 us more than
/// a count of its own; the gather in this pass too (a run's first thread gathering the run)
/// 313 us against 170 for the gather alone and about 100 for this pass.
template <class T, class Less>
struct SortShortItemRuns
{
  const std::uint32_t* keys; ///< [count], sorted
  T* items; ///< [count], items[s] of key keys[s]; each short run in order on return
  std::size_t count;
  Less less;
  std::uint8_t* inLongRun; ///< [count] 1 for an item of a run longer than kShortRun, else 0
  EMST_HD void operator()(std::size_t s) const { inLongRun[s] = this->sortRun(s) ? 1 : 0; }

  /// Whether item s is in a long run; sorts its short run if it starts one.
  EMST_HD bool sortRun(std::size_t s) const
  {
    std::uint32_t const first = keys[s];
    bool const joinsBefore = s > 0 && keys[s - 1] == first;
    if (!joinsBefore && (s + 1 >= count || keys[s + 1] != first))
    {
      return false; // in no run
    }
    if (joinsBefore) // within a run that its first item sorts, if short
    {
      return InLongRun<std::uint32_t>{ keys, count, SortedBits{ 0 } }(s);
    }
    int size = 1;
    bool open = true;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int i = 1; i <= kShortRun; ++i)
    {
      open = open && s + i < count && keys[s + i] == first;
      size += open ? 1 : 0;
    }
    if (size > kShortRun)
    {
      return true; // a long run: gathered and sorted with the others
    }
    T item[kShortRun];
    forPlacesOfRun(size, [&](int i) { item[i] = items[s + i]; });
    sortEightPlaces(
      [&](int a, int b)
      {
        if (b < size && less(item[b], item[a]))
        {
          T const t = item[a];
          item[a] = item[b];
          item[b] = t;
        }
      });
    forPlacesOfRun(size, [&](int i) { items[s + i] = item[i]; });
    return false;
  }
};

/// Sorts `items` by `less` (a strict weak order; items it finds equal end in any order), given
/// a 32-bit key of each that `less` refines (key(a) < key(b) implies less(a, b)): keys[s] is the
/// key of items[slots[s]]. A radix sort of the (key, slot) pairs, 8 bytes a pair instead of
/// the item's own (Exec::sortPairsByBits, all 32 bits: four passes), the items gathered in
/// that order, then the runs of equal keys put in order: each short run in place by one thread
/// (the long runs' items marked in the same pass), the long ones gathered and sorted together
/// by comparison (Exec::sortByLess). Where memory comes first (Exec::savesMemory) and the long
/// runs' room (a slot and two items each) would exceed the list's, the whole list is sorted by
/// comparison instead. Consumes keys, slots and items; returns the sorted items.
template <class Exec, class T, class Less>
Buffer<T, Exec> sortItemsByKey(Exec& exec, Buffer<std::uint32_t, Exec>& keys,
  Buffer<Index, Exec>& slots, Buffer<T, Exec>& items, const Less& less)
{
  std::size_t const n = items.size();
  if (n < 2)
  {
    keys.reset();
    slots.reset();
    return std::move(items);
  }
  exec.sortPairsByBits(keys, slots, 0, 32);
  Buffer<T, Exec> sorted(exec, n);
  exec.forEach(n, GatherItems<T>{ slots.data(), items.data(), sorted.data() });
  slots.reset();
  items.reset();
  Buffer<std::uint8_t, Exec> inLongRun(exec, n);
  exec.forEach(
    n, SortShortItemRuns<T, Less>{ keys.data(), sorted.data(), n, less, inLongRun.data() });
  keys.reset();
  std::size_t const tied = exec.count(n, IsMarked{ inLongRun.data() });
  if (tied == 0)
  {
    return sorted;
  }
  if (exec.savesMemory() && (sizeof(Index) + 2 * sizeof(T)) * tied > sizeof(T) * n)
  {
    inLongRun.reset();
    exec.sortByLess(sorted, less);
    return sorted;
  }
  Buffer<Index, Exec> slotOfTied(exec, tied);
  exec.selectIndices(n, slotOfTied.data(), IsMarked{ inLongRun.data() });
  inLongRun.reset();
  Buffer<T, Exec> run(exec, tied);
  exec.forEach(tied, GatherItems<T>{ slotOfTied.data(), sorted.data(), run.data() });
  exec.sortByLess(run, less);
  exec.forEach(tied, ScatterItems<T>{ slotOfTied.data(), run.data(), sorted.data() });
  return sorted;
}

} // namespace detail
} // namespace emst
