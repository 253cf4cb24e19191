// The subcommand groups of the full tool, one file each (tools/ir2vec/<Group>.cpp): each adds
// its subcommands, their options and their runs to the parser.
#pragma once

#include "ir2vec/EmbeddingChoice.h"
#include "mir/MirText.h"
#include "tools/ir2vec/Command.h"

namespace wb::tool {

// Ctx: the run this process is part of (alone, or a rank of an MPI job); it outlives the runs.
void addTripletCommands(CLI::App &App, Commands &Cmds, RunContext &Ctx);   // entities, triplets
void addEmbeddingCommands(CLI::App &App, Commands &Cmds, RunContext &Ctx); // embeddings, from-counts
void addVocabCommands(CLI::App &App, Commands &Cmds, RunContext &Ctx);     // vocab train|eval|...
void addCorpusCommands(CLI::App &App, Commands &Cmds, RunContext &Ctx);    // corpus extract
void addEvaluateCommands(CLI::App &App, Commands &Cmds, RunContext &Ctx);  // evaluate devmap
/// mlgo run|collect|log|features|policies; Compiler is what followed "--" on the command line.
void addMlgoCommands(CLI::App &App, Commands &Cmds, std::vector<std::string> Compiler,
                     RunContext &Ctx);

/// What a vocabulary argument names: "" = the default vocabulary, else the file (the symbolic
/// kind, LLVM's default weights); resolved where it is used, once (ir2vec/EmbeddingChoice.h).
ir2vec::EmbeddingRequest embeddingRequest(const std::string &Vocab);

/// The options of --mode=mir (docs/mir2vec.md): llc's target options, and for embeddings
/// llvm-ir2vec's --mir2vec-* options.
struct MirOptions {
  std::string Triple, CPU, Attrs, Stage, StopAfter, StopBefore; // Stage "" = post-ra
  std::string VocabPath, Kind = "symbolic", OpcWeight = "1.0", CommonWeight = "1.0", RegWeight = "1.0";
};
void addMirTargetOptions(CLI::App &Sub, MirOptions &M);
void addMirVocabularyOptions(CLI::App &Sub, MirOptions &M);
/// What a --mode=mir run is asked for (target, stop point, vocabulary, weights).
llvm::Expected<mir::MirRunOptions> mirRunOptions(const MirOptions &M);
/// The job of a --mode=mir run: one .mir file or IR module (Inputs: at most one; none for
/// entities).
llvm::Expected<mir::MirJob> mirJob(const MirOptions &M, const std::vector<std::string> &Inputs,
                                   const std::string &Output);

} // namespace wb::tool
