// OpenKE directories (vocab train's input): the input's parts, split at NUL bytes, become
// entity2id.txt, relation2id.txt, train2id.txt, triplet_counts.txt, valid2id.txt and
// test2id.txt in turn (a file for each part there is, no file past the last).
#include "fuzz/FuzzFile.h"
#include "vocab/KnowledgeGraph.h"

#include "llvm/ADT/StringRef.h"

#include <cstdio>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const char *Names[] = {"entity2id.txt",      "relation2id.txt", "train2id.txt",
                                "triplet_counts.txt", "valid2id.txt",    "test2id.txt"};
  const std::string Dir = wb::fuzz::scratchDir("openke");
  llvm::StringRef Rest(reinterpret_cast<const char *>(Data), Size);
  for (size_t I = 0; I < std::size(Names); ++I) {
    const std::string F = Dir + "/" + Names[I];
    std::remove(F.c_str());
    if (I > 0 && Rest.empty())
      continue;
    auto [Part, Next] = Rest.split('\0');
    wb::fuzz::writeFile(F, std::string_view(Part.data(), Part.size()));
    Rest = Next;
  }
  auto G = wb::vocab::readOpenKE(Dir, wb::vocab::SplitOptions{});
  if (!G)
    llvm::consumeError(G.takeError());
  return 0;
}
