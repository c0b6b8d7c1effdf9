// Text messages and broadcasts over MPI: MPI_CHAR payloads sized by MPI_Get_count or a length broadcast.
#include "validate/mpi_base/mpi_text.hpp"

#include <cstddef>

#include "validate/mpi_base/mpi_error.hpp"

namespace shardscope::mpi {

void send_text(const std::string& text, int to, int tag, MPI_Comm comm) {
  SHARDSCOPE_MPI_CALL(MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, to, tag, comm));
}

std::string receive_text(const MPI_Status& status, MPI_Comm comm) {
  int length = 0;
  SHARDSCOPE_MPI_CALL(MPI_Get_count(&status, MPI_CHAR, &length));
  std::string text(static_cast<std::size_t>(length), '\0');
  SHARDSCOPE_MPI_CALL(
      MPI_Recv(text.data(), length, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, comm, MPI_STATUS_IGNORE));
  return text;
}

TextMessage receive_text(int source, int tag, MPI_Comm comm) {
  MPI_Status status;
  SHARDSCOPE_MPI_CALL(MPI_Probe(source, tag, comm, &status));
  return TextMessage{status.MPI_SOURCE, status.MPI_TAG, receive_text(status, comm)};
}

std::optional<TextMessage> try_receive_text(int source, int tag, MPI_Comm comm) {
  int arrived = 0;
  MPI_Status status;
  SHARDSCOPE_MPI_CALL(MPI_Iprobe(source, tag, comm, &arrived, &status));
  if (!arrived) return std::nullopt;
  return TextMessage{status.MPI_SOURCE, status.MPI_TAG, receive_text(status, comm)};
}

void broadcast_text(std::string& text, int root, MPI_Comm comm) {
  unsigned long long length = text.size();
  SHARDSCOPE_MPI_CALL(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, root, comm));
  text.resize(static_cast<std::size_t>(length));
  SHARDSCOPE_MPI_CALL(MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, root, comm));
}

int broadcast_int(int value, int root, MPI_Comm comm) {
  SHARDSCOPE_MPI_CALL(MPI_Bcast(&value, 1, MPI_INT, root, comm));
  return value;
}

}  // namespace shardscope::mpi
