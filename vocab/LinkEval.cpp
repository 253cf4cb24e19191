#include "vocab/LinkEval.h"

#include "support/Error.h"

#include <algorithm>
#include <cmath>

namespace wb::vocab {
namespace {

// The true candidate lands, under a random tie break, uniformly on one of the positions
// Closer + 1 .. Closer + Ties + 1; every metric is its expectation over those positions.
double hitsAt(double K, double Closer, double Ties) {
  return std::clamp((K - Closer) / (Ties + 1), 0.0, 1.0);
}

void add(LinkMetrics &M, double Closer, double Ties) {
  ++M.Queries;
  M.MR += 1 + Closer + Ties / 2;
  double RR = 0;
  for (double P = Closer + 1; P <= Closer + Ties + 1; ++P)
    RR += 1 / P;
  M.MRR += RR / (Ties + 1);
  M.Hits1 += hitsAt(1, Closer, Ties);
  M.Hits3 += hitsAt(3, Closer, Ties);
  M.Hits10 += hitsAt(10, Closer, Ties);
}

void finish(LinkMetrics &M) {
  if (!M.Queries)
    return;
  for (double *V : {&M.MR, &M.MRR, &M.Hits1, &M.Hits3, &M.Hits10})
    *V /= double(M.Queries);
}

} // namespace

LinkReport evaluateLinks(const TransEModel &M, Distance D, const std::vector<Triplet> &Test,
                         const TripletSet &Known) {
  LinkReport Rep;
  const arma::uword NE = M.Entities.n_cols;
  const unsigned Dim = unsigned(M.Entities.n_rows);
  std::vector<double> Score(NE);
  for (const Triplet &T : Test) {
    const double *R = M.Relations.colptr(T.Relation);
    for (int Side = 0; Side < 2; ++Side) { // 0: replace the head, 1: replace the tail
      for (arma::uword E = 0; E < NE; ++E)
        Score[E] = Side == 0 ? transEDistance(M.Entities.colptr(E), R,
                                              M.Entities.colptr(T.Tail), Dim, D)
                             : transEDistance(M.Entities.colptr(T.Head), R,
                                              M.Entities.colptr(E), Dim, D);
      const EntityId TrueE = Side == 0 ? T.Head : T.Tail;
      const double TrueScore = Score[TrueE];
      double RawCloser = 0, RawTies = 0, FCloser = 0, FTies = 0;
      for (arma::uword E = 0; E < NE; ++E) {
        if (E == TrueE)
          continue;
        Triplet C = T;
        (Side == 0 ? C.Head : C.Tail) = EntityId(E);
        const bool IsKnown = Known.count(tripletKey(C)) != 0;
        const bool Closer = Score[E] < TrueScore, Tie = Score[E] == TrueScore;
        RawCloser += Closer, RawTies += Tie;
        if (!IsKnown)
          FCloser += Closer, FTies += Tie;
      }
      add(Rep.Raw, RawCloser, RawTies);
      add(Rep.Filtered, FCloser, FTies);
    }
  }
  finish(Rep.Raw);
  finish(Rep.Filtered);
  return Rep;
}

arma::mat fitRelations(const arma::mat &Entities, const std::vector<Triplet> &Train,
                       uint32_t NumRelations, Distance D) {
  const arma::uword Dim = Entities.n_rows;
  arma::mat R(Dim, NumRelations, arma::fill::zeros);
  std::vector<std::vector<const Triplet *>> By(NumRelations);
  for (const Triplet &T : Train)
    By[T.Relation].push_back(&T);
  std::vector<double> V;
  for (uint32_t Rel = 0; Rel < NumRelations; ++Rel) {
    if (By[Rel].empty())
      continue;
    for (arma::uword K = 0; K < Dim; ++K) {
      V.clear();
      for (const Triplet *T : By[Rel])
        V.push_back(Entities(K, T->Tail) - Entities(K, T->Head));
      if (D == Distance::L2) {
        double S = 0;
        for (double X : V)
          S += X;
        R(K, Rel) = S / double(V.size());
      } else {
        std::sort(V.begin(), V.end());
        const size_t N = V.size();
        R(K, Rel) = N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
      }
    }
  }
  return R;
}

llvm::ArrayRef<Analogy> defaultAnalogies() {
  // Each question pairs two relations that hold in the IR: integer vs floating-point
  // versions of an operation, signed vs unsigned, inverse conversions, read vs write of
  // the same kind of location, and mirrored compare predicates.
  static constexpr Analogy Questions[] = {
      {"Add", "Sub", "FAdd", "FSub"},
      {"Add", "FAdd", "Sub", "FSub"},
      {"Add", "FAdd", "Mul", "FMul"},
      {"Mul", "FMul", "SDiv", "FDiv"},
      {"Sub", "FSub", "Mul", "FMul"},
      {"SDiv", "FDiv", "SRem", "FRem"},
      {"UDiv", "SDiv", "URem", "SRem"},
      {"UDiv", "URem", "SDiv", "SRem"},
      {"ZExt", "SExt", "UIToFP", "SIToFP"},
      {"ZExt", "SExt", "LShr", "AShr"},
      {"FPToUI", "FPToSI", "UIToFP", "SIToFP"},
      {"FPToSI", "SIToFP", "FPToUI", "UIToFP"},
      {"Trunc", "ZExt", "FPTrunc", "FPExt"},
      {"PtrToInt", "IntToPtr", "FPToSI", "SIToFP"},
      {"Load", "Store", "ExtractValue", "InsertValue"},
      {"ExtractElement", "InsertElement", "ExtractValue", "InsertValue"},
      {"Add", "IntegerTy", "FAdd", "FloatTy"},
      {"Mul", "IntegerTy", "FMul", "FloatTy"},
      {"SIToFP", "FloatTy", "FPToSI", "IntegerTy"},
      {"ICmp", "FCmp", "Add", "FAdd"},
      {"ICMP_slt", "ICMP_sgt", "ICMP_ult", "ICMP_ugt"},
      {"ICMP_sle", "ICMP_sge", "ICMP_ule", "ICMP_uge"},
      {"ICMP_slt", "ICMP_sle", "ICMP_sgt", "ICMP_sge"},
      {"ICMP_ult", "ICMP_ule", "ICMP_ugt", "ICMP_uge"},
      {"FCMP_olt", "FCMP_ogt", "FCMP_ult", "FCMP_ugt"},
      {"FCMP_ole", "FCMP_oge", "FCMP_ule", "FCMP_uge"},
      {"FCMP_oeq", "FCMP_one", "ICMP_eq", "ICMP_ne"},
      {"FCMP_oeq", "FCMP_ueq", "FCMP_olt", "FCMP_ult"},
      {"Invoke", "LandingPad", "CatchSwitch", "CatchPad"},
      {"CleanupPad", "CleanupRet", "CatchPad", "CatchRet"},
  };
  return Questions;
}

llvm::Expected<AnalogyReport> evaluateAnalogies(const arma::mat &Entities,
                                                const std::vector<std::string> &Names,
                                                llvm::ArrayRef<Analogy> Questions) {
  auto IdOf = [&](std::string_view N) -> llvm::Expected<arma::uword> {
    auto It = std::find(Names.begin(), Names.end(), N);
    if (It == Names.end())
      return support::makeError("analogy entity '" + std::string(N) + "' is unknown");
    return arma::uword(It - Names.begin());
  };
  AnalogyReport Rep;
  const arma::uword NE = Entities.n_cols;
  arma::rowvec Norms(NE);
  for (arma::uword E = 0; E < NE; ++E)
    Norms(E) = arma::norm(Entities.col(E), 2);
  for (const Analogy &Q : Questions) {
    arma::uword Id[4];
    const std::string_view *Name[4] = {&Q.A, &Q.B, &Q.C, &Q.D};
    for (int I = 0; I < 4; ++I) {
      auto X = IdOf(*Name[I]);
      if (!X)
        return X.takeError();
      Id[I] = *X;
    }
    const arma::vec Target = Entities.col(Id[1]) - Entities.col(Id[0]) + Entities.col(Id[2]);
    const double TN = arma::norm(Target, 2);
    // Cosine similarity; a zero vector (or target) has similarity 0 to everything.
    auto Cos = [&](arma::uword E) {
      const double Den = TN * Norms(E);
      return Den > 0 ? arma::dot(Target, Entities.col(E)) / Den : 0.0;
    };
    const double True = Cos(Id[3]);
    double Better = 0, Ties = 0;
    for (arma::uword E = 0; E < NE; ++E) {
      if (E == Id[0] || E == Id[1] || E == Id[2] || E == Id[3])
        continue;
      const double S = Cos(E);
      Better += S > True;
      Ties += S == True;
    }
    // Expected top-k accuracy when the true answer ties with Ties others at position
    // Better + 1 .. Better + Ties + 1.
    Rep.Top1 += hitsAt(1, Better, Ties);
    Rep.Top5 += hitsAt(5, Better, Ties);
    ++Rep.Questions;
  }
  if (Rep.Questions) {
    Rep.Top1 /= double(Rep.Questions);
    Rep.Top5 /= double(Rep.Questions);
  }
  return Rep;
}

} // namespace wb::vocab
