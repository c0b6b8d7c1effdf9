// validate/mpi_base under `mpirun -n 2`: the session, text messages both ways, broadcasts, and the error
// check (a call on a rank that does not exist becomes an MpiError naming the call).
#include <gtest/gtest.h>
#include <mpi.h>

#include <optional>
#include <string>

#include "validate/mpi_base/mpi_error.hpp"
#include "validate/mpi_base/mpi_session.hpp"
#include "validate/mpi_base/mpi_text.hpp"

namespace shardscope::mpi {
namespace {

MpiSession* session = nullptr;  // set by main() for the whole run

TEST(MpiBase, SessionKnowsRankAndSize) {
  EXPECT_EQ(session->size(), 2) << "run it with mpirun -n 2";
  EXPECT_GE(session->rank(), 0);
  EXPECT_LT(session->rank(), session->size());
}

TEST(MpiBase, BroadcastsRootsValues) {
  std::string text = session->rank() == 0 ? std::string("grid \0name", 10) : "other";
  broadcast_text(text);
  EXPECT_EQ(text, std::string("grid \0name", 10));
  EXPECT_EQ(broadcast_int(session->rank() == 0 ? 42 : -1), 42);
  std::string empty = session->rank() == 0 ? "" : "not empty";
  broadcast_text(empty);
  EXPECT_EQ(empty, "");
}

TEST(MpiBase, TextGoesBothWays) {
  if (session->rank() == 1) {
    send_text("{\"ask\":1}", 0, 7);
    std::optional<TextMessage> reply;
    while (!(reply = try_receive_text(0, MPI_ANY_TAG))) {
    }
    EXPECT_EQ(reply->source, 0);
    EXPECT_EQ(reply->tag, 8);
    EXPECT_EQ(reply->text, "");
  } else {
    const TextMessage ask = receive_text(MPI_ANY_SOURCE, MPI_ANY_TAG);
    EXPECT_EQ(ask.source, 1);
    EXPECT_EQ(ask.tag, 7);
    EXPECT_EQ(ask.text, "{\"ask\":1}");
    EXPECT_FALSE(try_receive_text(MPI_ANY_SOURCE, MPI_ANY_TAG).has_value());
    send_text("", 1, 8);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(MpiBase, FailedCallBecomesMpiErrorNamingIt) {
  try {
    send_text("lost", session->size() + 5, 1);  // no such rank: MPI_ERR_RANK, returned (MPI_ERRORS_RETURN)
    FAIL() << "sending to a rank that does not exist succeeded";
  } catch (const MpiError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("MPI_Send(", 0), 0u) << message;
    EXPECT_NE(message.find(" failed: "), std::string::npos) << message;
    EXPECT_GT(message.size(), message.find(" failed: ") + 9) << "MPI's reason is missing: " << message;
  }
}

TEST(MpiBase, CheckPassesSuccessAndNamesTheCall) {
  EXPECT_NO_THROW(check(MPI_SUCCESS, "MPI_Barrier(comm)"));
  char reason[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(MPI_ERR_TAG, reason, &length);
  try {
    check(MPI_ERR_TAG, "MPI_Send(x)");
    FAIL() << "MPI_ERR_TAG passed the check";
  } catch (const MpiError& e) {
    EXPECT_EQ(std::string(e.what()), "MPI_Send(x) failed: " + std::string(reason, length));
  }
}

}  // namespace
}  // namespace shardscope::mpi

int main(int argc, char** argv) {
  shardscope::mpi::MpiSession session(&argc, &argv);
  shardscope::mpi::session = &session;
  ::testing::InitGoogleTest(&argc, argv);
  const int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;  // every rank ends with the same status
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any_failed;
}
