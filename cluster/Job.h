// Joining and leaving the MPI job a process was started in (mpirun, srun): the ranks of the run
// (support/Ranks.h) over MPI. Built with Debian's Open MPI when the build finds it (CMake option
// WB_MPI); a build without MPI still runs everything in one process and refuses to run as
// several ranks of a job (each would write the same outputs).
#pragma once

#include "support/Ranks.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace wb::cluster {

/// Whether this build can run as the ranks of an MPI job.
bool builtWithMPI();

/// The ranks of the job this process was started in by an MPI launcher (the launcher's
/// environment says so), or null when it was started alone or as a job of one rank. An error
/// when the launcher started several ranks and this build has no MPI, or MPI fails to start.
llvm::Expected<std::unique_ptr<support::Ranks>> joinJob(int &Argc, char **&Argv);

/// Leaves the job: rank 0 tells the other ranks Finish (they may wait for more items of a run
/// rank 0 has given up); the others wait for it. Then MPI is finalised. Null: nothing to do.
void leaveJob(std::unique_ptr<support::Ranks> R);

/// Waits (up to 10 s) for rank 0 to say Finish: whether it did. A rank other than 0 that
/// failed learns so whether rank 0 failed too (the same bad usage or input) and ends normally.
bool awaitFinish(support::Ranks &R);

/// Ends the whole job with Status (the launcher stops every rank): for a rank other than 0
/// that fails on its own, which rank 0 would otherwise wait for.
[[noreturn]] void abortJob(support::Ranks &R, int Status);

} // namespace wb::cluster
