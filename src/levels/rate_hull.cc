#include "src/levels/rate_hull.h"

#include <cstddef>

namespace blockbloom::internal {

RateHull::RateHull(const std::function<double(double)>& fp_rate) {
  const int steps = static_cast<int>((kMaxBits - kMinBits) * kStepsPerBit);
  for (int i = 0; i <= steps; ++i) {
    const double bits = kMinBits + static_cast<double>(i) / kStepsPerBit;
    const Point q{bits, fp_rate(bits)};
    // Monotone chain: drop the last vertex while it lies on or above the
    // segment from the one before it to q.
    while (hull_.size() >= 2) {
      const Point& a = hull_[hull_.size() - 2];
      const Point& b = hull_.back();
      const double cross = (b.bits - a.bits) * (q.fp_rate - a.fp_rate) -
                           (b.fp_rate - a.fp_rate) * (q.bits - a.bits);
      if (cross > 0) break;
      hull_.pop_back();
    }
    hull_.push_back(q);
  }
}

const RateHull::Point& RateHull::Minimizing(double slope) const {
  // The hull's segment slopes increase (towards 0); find the first vertex
  // whose outgoing segment is flatter than -slope.
  size_t lo = 0, hi = hull_.size() - 1;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const double seg = (hull_[mid + 1].fp_rate - hull_[mid].fp_rate) /
                       (hull_[mid + 1].bits - hull_[mid].bits);
    if (seg >= -slope) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return hull_[lo];
}

}  // namespace blockbloom::internal
