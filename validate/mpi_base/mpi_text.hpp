// Text messages between ranks (point to point and broadcast) and an int broadcast, every call checked.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>

namespace shardscope::mpi {

// One text message as it arrived: who sent it, with which tag.
struct TextMessage {
  int source = 0;
  int tag = 0;
  std::string text;
};

// Sends `text` (any bytes, possibly empty) to rank `to` with `tag`.
void send_text(const std::string& text, int to, int tag, MPI_Comm comm = MPI_COMM_WORLD);
// Receives the message `status` describes (found by MPI_Probe or MPI_Iprobe on `comm`).
std::string receive_text(const MPI_Status& status, MPI_Comm comm = MPI_COMM_WORLD);
// Waits for the next message from `source` with `tag` (MPI_ANY_SOURCE, MPI_ANY_TAG allowed) and receives it.
TextMessage receive_text(int source, int tag, MPI_Comm comm = MPI_COMM_WORLD);
// The next message from `source` with `tag` when one is waiting (MPI_Iprobe); empty at once otherwise.
std::optional<TextMessage> try_receive_text(int source, int tag, MPI_Comm comm = MPI_COMM_WORLD);

// Rank `root`'s `text` on every rank of `comm` (its length, then its bytes).
void broadcast_text(std::string& text, int root = 0, MPI_Comm comm = MPI_COMM_WORLD);
// Rank `root`'s `value` on every rank of `comm`.
int broadcast_int(int value, int root = 0, MPI_Comm comm = MPI_COMM_WORLD);

}  // namespace shardscope::mpi
