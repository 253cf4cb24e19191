// The subcommand groups of the full tool, one file each (tools/ir2vec/<Group>.cpp): each adds
// its subcommands, their options and their runs to the parser.
#pragma once

#include "tools/ir2vec/Command.h"

namespace wb::tool {

// Ctx: the run this process is part of (alone, or a rank of an MPI job); it outlives the runs.
void addTripletCommands(CLI::App &App, Commands &Cmds, RunContext &Ctx);   // entities, triplets
void addEmbeddingCommands(CLI::App &App, Commands &Cmds, RunContext &Ctx); // embeddings, from-counts
void addVocabCommands(CLI::App &App, Commands &Cmds, RunContext &Ctx);     // vocab train|eval|...
void addCorpusCommands(CLI::App &App, Commands &Cmds, RunContext &Ctx);    // corpus extract
/// mlgo run|collect|log|features|policies; Compiler is what followed "--" on the command line.
void addMlgoCommands(CLI::App &App, Commands &Cmds, std::vector<std::string> Compiler,
                     RunContext &Ctx);

} // namespace wb::tool
