// Model runners in the spirit of LLVM's MLModelRunner: a policy declares the input tensors it
// knows (by TensorSpec), the runner binds them by name to the tensors of an observation, and
// evaluate() gives the advice bytes.
//
// Feature-addition versioning (LLVM's MLGO.rst "Versioning"): features the compiler sends
// that the policy does not know are ignored; a feature the policy needs that the compiler does
// not send is an error naming it, unless ZeroMissing is set (ablations), in which case the
// policy sees zeros for it. A feature present on both sides with a different type or shape is
// always an error.
#pragma once

#include "features/FeatureSets.h"
#include "features/TrainingLog.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace wb::runners {

using features::Task;
using features::TensorSpec;

/// Read-only access to the policy's inputs, in the order the policy declared them.
class Inputs {
public:
  Inputs(std::vector<const char *> Ptrs, const std::vector<TensorSpec> &Specs)
      : Ptrs(std::move(Ptrs)), Specs(Specs) {}
  const TensorSpec &spec(size_t I) const { return Specs[I]; }
  size_t size() const { return Specs.size(); }
  /// Element J of input I converted to double, whatever its element type.
  double at(size_t I, size_t J) const;
  const char *raw(size_t I) const { return Ptrs[I]; }

private:
  std::vector<const char *> Ptrs;
  const std::vector<TensorSpec> &Specs;
};

class Policy {
public:
  virtual ~Policy() = default;
  /// The tensors this policy reads (names, types, shapes); bound by name.
  virtual std::vector<TensorSpec> inputs() const = 0;
  /// The advice as raw bytes of the task's advice spec. An error stops the session.
  virtual llvm::Expected<std::string> advise(const Inputs &In) = 0;
  virtual std::string describe() const = 0;
  /// A policy that reads the whole observation (a Python callable: ir2vec.mlgo.run) is bound
  /// to every tensor the observation has, in its order; inputs() is then not asked.
  virtual bool readsEverything() const { return false; }
};

struct BindOptions {
  bool ZeroMissing = false;
};

class ModelRunner {
public:
  /// Binds the policy's inputs to the observation layout Available (compiler features plus
  /// workbench extras) and checks the advice spec size.
  static llvm::Expected<ModelRunner> create(std::unique_ptr<Policy> P, Task T,
                                            const std::vector<TensorSpec> &Available,
                                            const TensorSpec &Advice, BindOptions O);
  /// Payload = one observation's tensor bytes in the order of Available.
  llvm::Expected<std::string> evaluate(llvm::StringRef Payload);
  /// Features the compiler sends that the policy ignores, and the ones zero-filled.
  const std::vector<std::string> &ignored() const { return Ignored; }
  const std::vector<std::string> &zeroFilled() const { return ZeroFilled; }
  Policy &policy() { return *P; }

private:
  std::unique_ptr<Policy> P;
  std::vector<TensorSpec> Specs;   // the policy's inputs
  std::vector<long> Offsets;       // offset in the payload, or -1: zero-filled
  std::string Zeros;
  size_t PayloadSize = 0, AdviceSize = 0;
  std::vector<std::string> Ignored, ZeroFilled;
};

} // namespace wb::runners
