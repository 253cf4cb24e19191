#include "runners/Policies.h"

#include <random>

namespace wb::runners {

std::string int64Advice(int64_t V) { return std::string(reinterpret_cast<char *>(&V), 8); }
std::string floatAdvice(float V) { return std::string(reinterpret_cast<char *>(&V), 4); }

TensorSpec evictionMaskSpec() { return {"mask", features::TensorType::Int64, 0, {1, 33}}; }

std::vector<size_t> legalColumns(const Inputs &In, size_t MaskIdx) {
  std::vector<size_t> L;
  for (size_t C = 0; C < EvictionColumns; ++C)
    if (In.at(MaskIdx, C) == 1)
      L.push_back(C);
  return L;
}

namespace {

llvm::Error policyError(const llvm::Twine &What) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), What);
}

size_t noEvictColumn(const std::vector<size_t> &Legal) {
  if (Legal.empty() || Legal.back() == NoEviction)
    return NoEviction;
  return Legal.front();
}

using features::TensorType;

/// default (inliner), no-evict (eviction) and random around them.
class BasePolicy : public Policy {
public:
  BasePolicy(Task T, bool Random, uint64_t Seed, double Explore)
      : T(T), Random(Random), Rng(Seed), Explore(Explore) {}
  std::vector<TensorSpec> inputs() const override {
    switch (T) {
    case Task::Inline:
      return {{"inlining_default", TensorType::Int64, 0, {1}}};
    case Task::Evict:
      return {evictionMaskSpec()};
    case Task::Priority:
      return {{"li_size", TensorType::Int64, 0, {1}}};
    }
    return {};
  }
  llvm::Expected<std::string> advise(const Inputs &In) override {
    bool Explore = Random && std::uniform_real_distribution<double>(0, 1)(Rng) < this->Explore;
    switch (T) {
    case Task::Inline: {
      int64_t D = In.at(0, 0) != 0;
      if (Explore)
        D = std::uniform_int_distribution<int>(0, 1)(Rng);
      return int64Advice(D);
    }
    case Task::Evict: {
      std::vector<size_t> Legal = legalColumns(In, 0);
      size_t C = noEvictColumn(Legal);
      if (Explore && !Legal.empty())
        C = Legal[std::uniform_int_distribution<size_t>(0, Legal.size() - 1)(Rng)];
      return int64Advice(static_cast<int64_t>(C));
    }
    case Task::Priority: {
      double Size = In.at(0, 0);
      if (Explore)
        Size = std::uniform_real_distribution<double>(0, std::max(1.0, Size))(Rng);
      return floatAdvice(static_cast<float>(Size));
    }
    }
    return policyError("unknown task");
  }
  std::string describe() const override {
    if (Random)
      return "random";
    return T == Task::Evict ? "no-evict" : "default";
  }

private:
  Task T;
  bool Random;
  std::mt19937_64 Rng;
  double Explore;
};

class ReplayPolicy : public Policy {
public:
  ReplayPolicy(std::string Path, std::vector<std::string> Decisions)
      : Path(std::move(Path)), Decisions(std::move(Decisions)) {}
  std::vector<TensorSpec> inputs() const override { return {}; }
  llvm::Expected<std::string> advise(const Inputs &) override {
    if (Next == Decisions.size())
      return policyError("replay: " + Path + " has only " + llvm::Twine(Decisions.size()) +
                         " decisions and the compiler asks for more");
    return Decisions[Next++];
  }
  std::string describe() const override { return "replay"; }

private:
  std::string Path;
  std::vector<std::string> Decisions;
  size_t Next = 0;
};

llvm::Expected<std::vector<std::string>> replayDecisions(Task T, llvm::StringRef Path) {
  llvm::Expected<features::Log> L = features::readLogFile(Path);
  if (!L)
    return L.takeError();
  const TensorSpec &Advice = features::taskInfo(T).Advice;
  std::optional<size_t> Idx = L->Header.find(Advice.Name);
  if (!Idx || L->Header.Features[*Idx] != Advice)
    return policyError(Path + ": not a session log of task '" + features::taskInfo(T).Name +
                       "': no '" + Advice.Name + "' " + features::shapeString(Advice) +
                       " feature");
  size_t Off = L->Header.offsetOf(*Idx);
  std::vector<std::string> D;
  for (const features::LogObservation &O : L->Observations)
    D.push_back(O.Payload.substr(Off, Advice.byteSize()));
  return D;
}

} // namespace

llvm::Expected<std::unique_ptr<Policy>> makePolicy(Task T, const PolicyOptions &O) {
  const std::string &N = O.Name;
  if (N == "default" || N == "no-evict" || N == "random") {
    if (N == "default" && T == Task::Evict)
      return policyError("policy 'default': the eviction advisor sends no default decision; "
                         "use no-evict");
    if (N == "default" && T == Task::Priority)
      return policyError("policy 'default': the priority advisor sends no default decision; "
                         "use random, linear, mlp or replay");
    if (N == "no-evict" && T != Task::Evict)
      return policyError("policy 'no-evict' is for --task evict");
    if (N == "random" && !(O.Explore >= 0 && O.Explore <= 1))
      return policyError("--explore must be a probability in [0, 1]");
    return std::make_unique<BasePolicy>(T, N == "random", O.Seed, O.Explore);
  }
  if (N == "linear" || N == "mlp") {
    if (O.ModelPath.empty())
      return policyError("policy '" + N + "' needs --model FILE");
    if (!O.LoadModel)
      return policyError("policy '" + N + "' is not available in this program");
    return O.LoadModel(T, O);
  }
  if (N == "replay") {
    if (O.ReplayPath.empty())
      return policyError("policy 'replay' needs --replay LOG");
    llvm::Expected<std::vector<std::string>> D = replayDecisions(T, O.ReplayPath);
    if (!D)
      return D.takeError();
    return std::make_unique<ReplayPolicy>(O.ReplayPath, std::move(*D));
  }
  return policyError("unknown policy '" + N +
                     "' (default, no-evict, random, linear, mlp, replay)");
}

} // namespace wb::runners
