#include "cluster/Job.h"
#include "cluster/Launch.h"

#include "support/Error.h"

#include <algorithm>
#include <cstdio>
#include <sys/resource.h>
#include <cstdlib>
#include <list>
#include <map>
#include <mutex>
#include <thread>

#ifdef WB_HAVE_MPI
#include <mpi.h>
#endif

namespace wb::cluster {

#ifdef WB_HAVE_MPI

namespace {

/// Messages longer than this go in pieces (MPI counts are ints).
constexpr size_t MaxPiece = size_t(1) << 30;
/// Tag bit of a piece that more pieces of the same message follow.
constexpr int MorePieces = 1 << 8;

class MpiRanks final : public support::Ranks {
public:
  MpiRanks(int Rank, int Size) : Rank(unsigned(Rank)), Size(unsigned(Size)) {}

  unsigned rank() const override { return Rank; }
  unsigned size() const override { return Size; }

  void send(unsigned To, Tag T, std::string Bytes) override {
    std::lock_guard<std::mutex> L(Mu);
    if (!root() && finished())
      return; // rank 0 has left the job: nobody reads this
    Sent.add(T, Bytes.size());
    Sending.push_back({std::move(Bytes), {}});
    Outgoing &O = Sending.back();
    size_t At = 0;
    do {
      const size_t N = std::min(MaxPiece, O.Bytes.size() - At);
      const bool More = At + N < O.Bytes.size();
      O.Requests.emplace_back();
      MPI_Isend(O.Bytes.data() + At, int(N), MPI_BYTE, int(To), int(T) | (More ? MorePieces : 0),
                MPI_COMM_WORLD, &O.Requests.back());
      At += N;
    } while (At < O.Bytes.size());
    reap();
  }

  std::optional<Message> receive(std::chrono::microseconds Wait) override {
    const auto Deadline = std::chrono::steady_clock::now() + Wait;
    // Open MPI's blocking calls spin on the CPU: poll, sleeping longer while nothing comes
    // (the machine's cores belong to the workers).
    auto Nap = std::chrono::microseconds(10);
    for (;;) {
      if (std::optional<Message> M = poll())
        return M;
      const auto Now = std::chrono::steady_clock::now();
      if (Now >= Deadline)
        return std::nullopt;
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(Nap, Deadline - Now));
      Nap = std::min(Nap * 2, std::chrono::microseconds(200));
    }
  }

  void leave() {
    if (std::getenv("IR2VEC_MPI_STATS")) { // the counts docs/scale.md models with
      rusage U{};
      getrusage(RUSAGE_SELF, &U);
      const double Cpu = double(U.ru_utime.tv_sec + U.ru_stime.tv_sec) +
                         double(U.ru_utime.tv_usec + U.ru_stime.tv_usec) / 1e6;
      std::fprintf(stderr, "ir2vec: rank %u of %u: received %s; sent %s; cpu %.3f s\n", Rank,
                   Size, Received.describe().c_str(), Sent.describe().c_str(), Cpu);
    }
    if (root()) {
      for (unsigned R = 1; R < Size; ++R)
        send(R, Finish, "");
    } else {
      while (!finished())
        receive(std::chrono::milliseconds(10)); // late messages of the last run are dropped
    }
    for (;;) { // every message out before MPI goes
      {
        std::lock_guard<std::mutex> L(Mu);
        reap();
        if (Sending.empty())
          break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    MPI_Finalize();
  }

private:
  struct Outgoing {
    std::string Bytes; // alive until every piece is sent
    std::vector<MPI_Request> Requests;
  };

  void reap() {
    for (auto It = Sending.begin(); It != Sending.end();) {
      int Done = 0;
      MPI_Testall(int(It->Requests.size()), It->Requests.data(), &Done, MPI_STATUSES_IGNORE);
      It = Done ? Sending.erase(It) : std::next(It);
    }
  }

  std::optional<Message> poll() {
    std::lock_guard<std::mutex> L(Mu);
    reap();
    for (;;) {
      int Flag = 0;
      MPI_Status St;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &Flag, &St);
      if (!Flag)
        return std::nullopt;
      int N = 0;
      MPI_Get_count(&St, MPI_BYTE, &N);
      Buffer In(static_cast<size_t>(N));
      MPI_Recv(In.data(), N, MPI_BYTE, St.MPI_SOURCE, St.MPI_TAG, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      auto Pieces = Partial.find(St.MPI_SOURCE);
      if (St.MPI_TAG & MorePieces || Pieces != Partial.end()) { // a message in pieces
        std::string &Whole = Partial[St.MPI_SOURCE];
        Whole.append(In.data(), In.size());
        if (St.MPI_TAG & MorePieces)
          continue;
        In = Buffer(llvm::StringRef(Whole));
        Partial.erase(St.MPI_SOURCE);
      }
      Message M{unsigned(St.MPI_SOURCE), unsigned(St.MPI_TAG & ~MorePieces), std::move(In)};
      Received.add(M.Tag, M.Bytes.size());
      if (M.Tag == Finish)
        markFinished();
      return M;
    }
  }

  /// Messages and bytes by kind, for IR2VEC_MPI_STATS.
  struct Counts {
    uint64_t Messages[Finish + 1] = {}, Bytes[Finish + 1] = {};
    void add(unsigned T, size_t N) {
      if (T <= Finish) {
        ++Messages[T];
        Bytes[T] += N;
      }
    }
    std::string describe() const {
      static const char *Names[] = {"",     "requests", "grants", "results",
                                    "done", "shares",   "finish"};
      std::string S;
      for (unsigned T = Request; T <= Finish; ++T)
        if (Messages[T])
          S += (S.empty() ? "" : ", ") + std::to_string(Messages[T]) + " " + Names[T] + " (" +
               std::to_string(Bytes[T]) + " bytes)";
      return S.empty() ? "nothing" : S;
    }
  };

  const unsigned Rank, Size;
  Counts Sent, Received;
  std::mutex Mu; // every MPI call: one thread at a time
  std::list<Outgoing> Sending;
  std::map<int, std::string> Partial; // pieces of a long message, by sender
};

} // namespace

bool builtWithMPI() { return true; }

llvm::Expected<std::unique_ptr<support::Ranks>> joinJob(int &Argc, char **&Argv) {
  if (launchedRanks() < 2)
    return nullptr;
  // Open MPI installs handlers for SIGSEGV, SIGBUS, SIGILL and SIGABRT that print a backtrace;
  // they would take the signals LLVM's crash recovery turns into per-module errors
  // (corpus::runRecoverable). Unless the user asked for them.
  setenv("OMPI_MCA_opal_signal", "", /*overwrite=*/0);
  int Provided = 0;
  if (MPI_Init_thread(&Argc, &Argv, MPI_THREAD_MULTIPLE, &Provided) != MPI_SUCCESS)
    return support::makeError("MPI_Init_thread failed");
  if (Provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    return support::makeError("this MPI library cannot be called from several threads (it "
                              "provides thread level " + std::to_string(Provided) +
                              "; the workbench needs MPI_THREAD_SERIALIZED)");
  }
  int Rank = 0, Size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  return std::make_unique<MpiRanks>(Rank, Size);
}

void leaveJob(std::unique_ptr<support::Ranks> R) {
  if (R)
    static_cast<MpiRanks &>(*R).leave();
}

bool awaitFinish(support::Ranks &R) {
  const auto Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!R.finished() && std::chrono::steady_clock::now() < Deadline)
    R.receive(std::chrono::milliseconds(10));
  return R.finished();
}

void abortJob(support::Ranks &, int Status) {
  MPI_Abort(MPI_COMM_WORLD, Status);
  std::_Exit(Status);
}

#else // without MPI

bool builtWithMPI() { return false; }

llvm::Expected<std::unique_ptr<support::Ranks>> joinJob(int &, char **&) {
  if (launchedRanks() >= 2)
    return support::makeError(
        "started as one of " + std::to_string(launchedRanks()) +
        " ranks of an MPI job, but this ir2vec was built without MPI (every rank would write "
        "the same output): run it without mpirun, or build it with Open MPI (libopenmpi-dev; "
        "README)");
  return nullptr;
}

void leaveJob(std::unique_ptr<support::Ranks>) {}

bool awaitFinish(support::Ranks &) { return true; }

void abortJob(support::Ranks &, int Status) { std::_Exit(Status); }

#endif

} // namespace wb::cluster
