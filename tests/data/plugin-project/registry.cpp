#include "shapes.h"

#include <algorithm>
#include <numeric>

void Registry::add(std::unique_ptr<Shape> S) {
  if (S)
    Shapes.push_back(std::move(S));
}

double Registry::total() const {
  return std::accumulate(Shapes.begin(), Shapes.end(), 0.0,
                         [](double Sum, const std::unique_ptr<Shape> &S) { return Sum + S->area(); });
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> Out;
  for (const auto &S : Shapes)
    Out.push_back(S->name());
  std::sort(Out.begin(), Out.end());
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}
