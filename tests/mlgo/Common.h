// What the MLGO unit tests share: the headers they use and the helpers that build payloads,
// headers and temporary files. The tests are split by component (features, runners, training,
// the judging kernel, rules), each file holding the tests of one.
#pragma once

#include "corpus/H5.h"
#include "features/FeatureSets.h"
#include "features/RegallocScore.h"
#include "features/TensorSpec.h"
#include "features/TrainingLog.h"
#include "llvm/Analysis/InlineModelFeatureMaps.h"
#include "llvm/Analysis/MLInlineAdvisor.h"
#include "llvm/Analysis/TensorSpec.h"
#include "llvm/Analysis/Utils/TrainingLogger.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "mlgo/studies/Ablation.h"
#include "mlgo/studies/RuleSearch.h"
#include "mlgo/pipelines/Split.h"
#include "mlgo/pipelines/Train.h"
#include "runners/ModelRunner.h"
#include "runners/Models.h"
#include "runners/Policies.h"
#include "support/Error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

using namespace wb;
using features::TensorSpec;
using features::TensorType;

template <typename T> inline std::string bytesOf(std::initializer_list<T> V) {
  std::string S;
  for (T X : V)
    S.append(reinterpret_cast<const char *>(&X), sizeof(T));
  return S;
}

inline std::vector<TensorSpec> inlinerHeader(bool Embeddings, unsigned D = 8) {
  std::vector<TensorSpec> H;
  for (const features::FeatureDef &F : features::taskInfo(features::Task::Inline).Features)
    if (F.From == features::Origin::Compiler ||
        (Embeddings && F.From == features::Origin::CompilerOptional))
      H.push_back(features::specOf(F, D));
  return H;
}

inline std::string inlinerPayload(const std::vector<TensorSpec> &H) {
  // feature i holds value i+1 in every element
  std::string P;
  for (size_t I = 0; I < H.size(); ++I)
    for (size_t J = 0; J < H[I].elementCount(); ++J) {
      if (H[I].Type == TensorType::Float)
        P += bytesOf<float>({float(I + 1)});
      else
        P += bytesOf<int64_t>({int64_t(I + 1)});
    }
  return P;
}

inline std::string tempPath(const char *Name) {
  llvm::SmallString<128> P;
  llvm::sys::fs::createTemporaryFile(Name, "h5", P);
  return P.str().str();
}

