// The subcommand groups of the full tool, one file each (tools/ir2vec/<Group>.cpp): each adds
// its subcommands, their options and their runs to the parser.
#pragma once

#include "tools/ir2vec/Command.h"

namespace wb::tool {

void addTripletCommands(CLI::App &App, Commands &Cmds);   // entities, triplets
void addEmbeddingCommands(CLI::App &App, Commands &Cmds); // embeddings, from-counts
void addVocabCommands(CLI::App &App, Commands &Cmds);     // vocab train|eval|split|export
void addCorpusCommands(CLI::App &App, Commands &Cmds);    // corpus extract
/// mlgo run|collect|log|features|policies; Compiler is what followed "--" on the command line.
void addMlgoCommands(CLI::App &App, Commands &Cmds, std::vector<std::string> Compiler);

} // namespace wb::tool
