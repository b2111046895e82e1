// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The bookkeeping of a block handed out in pieces (backends/BlockArena.h: plain C++, checked
// here on any machine; the CUDA backend carves a small run's buffers out of one device block
// with it): against a map of the block's units, taken or free, under random sequences of takes
// and gives.
#include "backends/BlockArena.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <vector>

using emst::detail::BlockArena;

namespace
{

constexpr std::size_t kUnit = BlockArena::kAlignment;

struct Piece
{
  std::size_t offset;
  std::size_t bytes;
};

/// The free runs of units of `taken` (true: taken), as (first unit, units).
std::vector<Piece> freeRuns(const std::vector<bool>& taken)
{
  std::vector<Piece> runs;
  for (std::size_t u = 0; u < taken.size();)
  {
    if (taken[u])
    {
      ++u;
      continue;
    }
    std::size_t end = u;
    while (end < taken.size() && !taken[end])
    {
      ++end;
    }
    runs.push_back(Piece{ u, end - u });
    u = end;
  }
  return runs;
}

} // namespace

TEST(BlockArena, PiecesAreAlignedDisjointAndFromTheSmallestRangeThatHoldsThem)
{
  std::mt19937 random(11);
  for (std::size_t const units : { 1u, 2u, 7u, 64u, 300u })
  {
    SCOPED_TRACE("a block of " + std::to_string(units) + " units");
    BlockArena arena;
    arena.reset(units * kUnit + kUnit / 2); // the capacity rounds down to whole units
    ASSERT_EQ(arena.capacity(), units * kUnit);
    std::vector<bool> taken(units, false);
    std::vector<Piece> live;
    for (int step = 0; step < 4000; ++step)
    {
      bool const give = !live.empty() && random() % 5 < 2;
      if (give)
      {
        std::size_t const k = random() % live.size();
        Piece const piece = live[k];
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
        arena.give(piece.offset, piece.bytes);
        for (std::size_t u = piece.offset / kUnit; u * kUnit < piece.offset + piece.bytes; ++u)
        {
          taken[u] = false;
        }
      }
      else
      {
        std::size_t const bytes = 1 + random() % (kUnit * (1 + units / 4));
        std::size_t const need = (bytes + kUnit - 1) / kUnit;
        std::size_t const offset = arena.take(bytes);
        // The reference's choice: the smallest free run of at least `need` units, the lowest.
        std::vector<Piece> const runs = freeRuns(taken);
        const Piece* best = nullptr;
        for (const Piece& run : runs)
        {
          if (run.bytes >= need && (!best || run.bytes < best->bytes))
          {
            best = &run;
          }
        }
        if (!best)
        {
          EXPECT_EQ(offset, BlockArena::kNone) << "step " << step;
          continue;
        }
        ASSERT_EQ(offset, best->offset * kUnit) << "step " << step << ", " << bytes << " bytes";
        for (std::size_t u = best->offset; u < best->offset + need; ++u)
        {
          ASSERT_FALSE(taken[u]);
          taken[u] = true;
        }
        live.push_back(Piece{ offset, bytes });
      }
      // The arena's free ranges are the reference's free runs: as many (none adjacent) and as
      // many bytes.
      std::vector<Piece> const runs = freeRuns(taken);
      std::size_t freeUnits = 0;
      for (const Piece& run : runs)
      {
        freeUnits += run.bytes;
      }
      ASSERT_EQ(arena.freeRanges(), runs.size()) << "step " << step;
      ASSERT_EQ(arena.freeBytes(), freeUnits * kUnit) << "step " << step;
    }
    for (const Piece& piece : live)
    {
      arena.give(piece.offset, piece.bytes);
    }
    EXPECT_EQ(arena.freeRanges(), 1u);
    EXPECT_EQ(arena.freeBytes(), arena.capacity());
  }
}

TEST(BlockArena, RefusesWhatNoRangeHolds)
{
  BlockArena arena;
  EXPECT_EQ(arena.take(1), BlockArena::kNone); // no block
  arena.reset(4 * kUnit);
  EXPECT_EQ(arena.take(0), BlockArena::kNone);
  EXPECT_EQ(arena.take(4 * kUnit + 1), BlockArena::kNone);
  EXPECT_EQ(arena.take(~std::size_t(0)), BlockArena::kNone); // no overflow in the rounding
  std::size_t const a = arena.take(kUnit);
  std::size_t const b = arena.take(kUnit);
  std::size_t const c = arena.take(2 * kUnit);
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, kUnit);
  EXPECT_EQ(c, 2 * kUnit);
  EXPECT_EQ(arena.take(1), BlockArena::kNone);
  arena.give(a, kUnit);
  arena.give(c, 2 * kUnit);
  // Three units free, but in two ranges: two units fit only where c was.
  EXPECT_EQ(arena.freeBytes(), 3 * kUnit);
  EXPECT_EQ(arena.take(3 * kUnit), BlockArena::kNone);
  EXPECT_EQ(arena.take(2 * kUnit), 2 * kUnit);
  EXPECT_TRUE(arena.holds(3 * kUnit));
  EXPECT_FALSE(arena.holds(4 * kUnit));
}
