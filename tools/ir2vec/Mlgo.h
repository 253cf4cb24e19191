// `ir2vec mlgo ...`: the MLGO runtime commands (interactive host, collection, logs, feature
// tables). A thin layer over features/ and runners/.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>

namespace wb::tool {

/// Adds the mlgo subcommands to App; the returned function runs the chosen one (call it only
/// when the mlgo subcommand was given) and gives the exit status. Compiler is what followed
/// "--" on the command line (the compiler command of `mlgo run`), split off before parsing.
std::function<int()> addMlgoCommands(CLI::App &App, std::vector<std::string> Compiler);

} // namespace wb::tool
