// llvm-ir2vec 22's MIR mode (`--mode=mir`) for one .mir file, or for one LLVM IR module taken
// to machine IR in-process (mir/MachineCompile.h): `entities` and `triplets` in its text
// formats, byte for byte where llvm-ir2vec-22 works (docs/mir2vec.md lists where it does not and
// what is done instead). (`embeddings --mode=mir` is a run of ir2vec/EmbeddingBatch.h over
// mir/MirCorpus.h's source.)
//
//   entities    "<count>\n" then "<name>\t<id>\n" per entity of the target's layout
//   triplets    "MAX_RELATION=<n>\n" then "<head>\t<tail>\t<relation>\n"
#pragma once

#include "mir/MirCorpus.h"
#include "support/Diagnostics.h"
#include "support/Error.h"

#include <string>

namespace wb::mir {

struct MirJob : Lowering {
  std::string Input;        // a .mir file ("-" = standard input; "" = none, for entities), or
                            // an LLVM IR module (.ll, .bc), lowered as Lowering says
  std::string Output = "-";
};

/// `entities --mode=mir`: the layout of the input's target, or of --mtriple's (the host's by
/// default) without an input, where llvm-ir2vec-22 needs a .mir file.
llvm::Expected<support::Outcome> runMirEntities(const MirJob &J, const support::DiagnosticHandler &Report);
/// `triplets --mode=mir`.
llvm::Expected<support::Outcome> runMirTriplets(const MirJob &J, const support::DiagnosticHandler &Report);

void renderMirEntities(std::string &Out, const MirLayout &L);

} // namespace wb::mir
