// Whether an MPI launcher (mpirun, srun) started this process as one of several ranks, read from
// the launcher's environment: header-only, so that the launcher `ir2vec` can ask without linking
// MPI.
#pragma once

#include <algorithm>
#include <cstdlib>

namespace wb::cluster {

/// The number of ranks the launcher started (Open MPI's mpirun, and the PMI of MPICH's hydra
/// and of Slurm's srun); 0 when no launcher started this process.
inline unsigned launchedRanks() {
  for (const char *Var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char *V = std::getenv(Var))
      return unsigned(std::max(0L, std::strtol(V, nullptr, 10)));
  return 0;
}

} // namespace wb::cluster
