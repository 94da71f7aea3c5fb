// A filter kind's false-positive rate curve f(c), sampled every 1/32 bit/key
// on [1, 48], and its lower convex hull: what LevelAllocator minimizes over.
//
// f is not convex everywhere (the blocked kind's rate is a minimum over k of
// convex curves, with a small concave kink wherever the best k changes), so
// the minimizer of f(c) + s c is taken on the hull: the vertex where the
// hull's slope crosses -s, which is the global minimizer over the samples.
// Sampling every 1/32 bit puts a plan within 1/64 bit of the continuous
// optimum, far below what a table's rounding to whole blocks moves.
#ifndef BLOCKBLOOM_SRC_LEVELS_RATE_HULL_H_
#define BLOCKBLOOM_SRC_LEVELS_RATE_HULL_H_

#include <functional>
#include <memory>
#include <vector>

namespace blockbloom::internal {

class RateHull {
 public:
  struct Point {
    double bits;
    double fp_rate;
  };
  static constexpr double kMinBits = 1;
  static constexpr double kMaxBits = 48;
  static constexpr int kStepsPerBit = 32;

  // Samples `fp_rate` (about 1,500 calls).
  explicit RateHull(const std::function<double(double)>& fp_rate);

  // The hull vertex minimizing f(c) + slope * c (slope >= 0; +inf gives the
  // first vertex, 0 the last).
  const Point& Minimizing(double slope) const;

  const std::vector<Point>& vertices() const { return hull_; }

 private:
  std::vector<Point> hull_;
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_LEVELS_RATE_HULL_H_
