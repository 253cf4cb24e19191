#include "shapes.h"

namespace {
struct Circle : Shape {
  double R;
  explicit Circle(double R) : R(clampTo(R, 0.0, 1e6)) {}
  double area() const override { return 3.141592653589793 * R * R; }
  std::string name() const override { return "circle"; }
};
struct Rect : Shape {
  double W, H;
  Rect(double W, double H) : W(clampTo(W, 0.0, 1e6)), H(clampTo(H, 0.0, 1e6)) {}
  double area() const override { return W * H; }
  std::string name() const override { return W == H ? "square" : "rect"; }
};
} // namespace

std::unique_ptr<Shape> makeCircle(double R) { return std::make_unique<Circle>(R); }
std::unique_ptr<Shape> makeRect(double W, double H) { return std::make_unique<Rect>(W, H); }
std::unique_ptr<Shape> makeSquare(double S) { return makeRect(S, S); }
