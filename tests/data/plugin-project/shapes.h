#pragma once
#include <memory>
#include <string>
#include <vector>

struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
  virtual std::string name() const = 0;
};

std::unique_ptr<Shape> makeCircle(double R);
std::unique_ptr<Shape> makeRect(double W, double H);
std::unique_ptr<Shape> makeSquare(double S);

template <typename T> T clampTo(T V, T Lo, T Hi) { return V < Lo ? Lo : (V > Hi ? Hi : V); }

class Registry {
public:
  void add(std::unique_ptr<Shape> S);
  double total() const;
  std::vector<std::string> names() const;
  size_t size() const { return Shapes.size(); }

private:
  std::vector<std::unique_ptr<Shape>> Shapes;
};

std::string report(const Registry &R, int Width);
