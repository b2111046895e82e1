// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTParallel.h"

#include "vtkDataObject.h"
#include "vtkMultiProcessController.h"
#include "vtkPolyData.h"

namespace vtkEMSTParallel
{
namespace
{

// Tags of the exchanges' messages (any values no other part of the pipeline uses at the time:
// the exchanges are collective, nothing else talks between two processes meanwhile).
constexpr int SizeTag = 477301;
constexpr int BytesTag = 477302;
constexpr int ObjectTag = 477303;

/// Runs exchange(partner, sendFirst) for every round in which this process has a partner.
template <class Exchange>
bool EveryPair(vtkMultiProcessController* controller, Exchange&& exchange)
{
  const int size = controller->GetNumberOfProcesses();
  const int rank = controller->GetLocalProcessId();
  bool ok = true;
  for (int round = 0; round < Rounds(size); ++round)
  {
    const int partner = Partner(rank, size, round);
    if (partner >= 0)
    {
      ok = exchange(partner, rank < partner) && ok;
    }
  }
  return ok;
}

}

int Rounds(int size)
{
  return size < 2 ? 0 : (size % 2 == 0 ? size - 1 : size);
}

int Partner(int rank, int size, int round)
{
  // The circle method over an even number of places: place `last` is fixed, the others turn.
  const int places = size % 2 == 0 ? size : size + 1;
  const int last = places - 1;
  int partner;
  if (rank == last)
  {
    partner = static_cast<int>((static_cast<long long>(round) * (places / 2)) % last);
  }
  else
  {
    partner = ((round - rank) % last + last) % last;
    if (partner == rank)
    {
      partner = last;
    }
  }
  return partner < size ? partner : -1; // the extra place of an odd size is a bye
}

bool AllToAll(vtkMultiProcessController* controller,
  const std::vector<std::vector<unsigned char>>& send,
  std::vector<std::vector<unsigned char>>& receive)
{
  const int rank = controller->GetLocalProcessId();
  receive.assign(send.size(), {});
  receive[rank] = send[rank];
  return EveryPair(controller,
    [&](int partner, bool sendFirst)
    {
      auto sendTo = [&]
      {
        const unsigned long long bytes = send[partner].size();
        bool ok = controller->Send(&bytes, 1, partner, SizeTag) != 0;
        if (bytes > 0)
        {
          ok = controller->Send(reinterpret_cast<const char*>(send[partner].data()),
                 static_cast<vtkIdType>(bytes), partner, BytesTag) != 0 &&
            ok;
        }
        return ok;
      };
      auto receiveFrom = [&]
      {
        unsigned long long bytes = 0;
        bool ok = controller->Receive(&bytes, 1, partner, SizeTag) != 0;
        receive[partner].resize(ok ? bytes : 0);
        if (ok && bytes > 0)
        {
          ok = controller->Receive(reinterpret_cast<char*>(receive[partner].data()),
                 static_cast<vtkIdType>(bytes), partner, BytesTag) != 0;
        }
        return ok;
      };
      if (sendFirst)
      {
        const bool sent = sendTo();
        return receiveFrom() && sent;
      }
      const bool received = receiveFrom();
      return sendTo() && received;
    });
}

bool AllToAll(vtkMultiProcessController* controller,
  const std::vector<vtkSmartPointer<vtkDataObject>>& send,
  std::vector<vtkSmartPointer<vtkDataObject>>& receive)
{
  const int rank = controller->GetLocalProcessId();
  receive.assign(send.size(), nullptr);
  receive[rank] = send[rank];
  return EveryPair(controller,
    [&](int partner, bool sendFirst)
    {
      auto sendTo = [&]
      {
        vtkSmartPointer<vtkDataObject> object = send[partner];
        if (object == nullptr)
        {
          object = vtkSmartPointer<vtkPolyData>::New();
        }
        return controller->Send(object, partner, ObjectTag) != 0;
      };
      auto receiveFrom = [&]
      {
        receive[partner].TakeReference(controller->ReceiveDataObject(partner, ObjectTag));
        return receive[partner] != nullptr;
      };
      if (sendFirst)
      {
        const bool sent = sendTo();
        return receiveFrom() && sent;
      }
      const bool received = receiveFrom();
      return sendTo() && received;
    });
}

}
