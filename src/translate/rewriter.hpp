#pragma once
// The translator's edits of the CUDA source text (docs/TRANSLATE.md): a range and what replaces it,
// produced when rendered, so that edits nest (a shuffle's argument may itself use threadIdx). Every
// concern of the translator writes its Metal through these edits; the output renders them.
#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ksearch::translate::detail {

// Edits of the source text. render(b, e) copies [b, e) with the outermost edits inside it applied;
// an edit's text may itself render sub-ranges, which applies the edits nested there.
class Rewriter {
 public:
  explicit Rewriter(std::string text) : text_(std::move(text)) {}
  // A later replacement of the same range wins: a declaration's name (a parameter bound to the
  // task's name) over the token's spelling (a Metal keyword renamed).
  void replace(unsigned b, unsigned e, std::function<std::string()> produce) {
    if (b < e) {
      auto [at, added] = ranges_.try_emplace({b, e}, edits_.size());
      if (!added) {
        edits_[at->second].produce = std::move(produce);
        return;
      }
    }
    edits_.push_back({b, e, std::move(produce)});
    sorted_ = false;
  }
  void replace(unsigned b, unsigned e, std::string text) {
    replace(b, e, [text] { return text; });
  }
  void insert(unsigned at, std::string text) { replace(at, at, std::move(text)); }
  void insert(unsigned at, std::function<std::string()> produce) { replace(at, at, std::move(produce)); }
  std::string render(unsigned b, unsigned e) {
    if (!sorted_) {
      // Insertions first at a position, then longer edits before the ones they contain.
      std::stable_sort(edits_.begin(), edits_.end(), [](const Edit& x, const Edit& y) {
        if (x.b != y.b) return x.b < y.b;
        if ((x.b == x.e) != (y.b == y.e)) return x.b == x.e;
        return x.e > y.e;
      });
      for (size_t i = 0; i < edits_.size(); ++i)
        if (edits_[i].b < edits_[i].e) ranges_[{edits_[i].b, edits_[i].e}] = i;
      sorted_ = true;
    }
    std::string out;
    unsigned pos = b;
    auto it = std::lower_bound(edits_.begin(), edits_.end(), b, [](const Edit& x, unsigned v) { return x.b < v; });
    for (; it != edits_.end() && it->b < e + (it->b == it->e ? 1 : 0); ++it) {
      if (it->b < pos || it->e > e) continue;
      out.append(text_, pos, it->b - pos);
      out += it->produce();
      pos = it->e;
    }
    out.append(text_, pos, e - pos);
    return out;
  }
  const std::string& text() const { return text_; }

 private:
  struct Edit {
    unsigned b, e;
    std::function<std::string()> produce;
  };
  std::string text_;
  std::vector<Edit> edits_;
  std::map<std::pair<unsigned, unsigned>, size_t> ranges_;  // a replaced range -> its edit
  bool sorted_ = true;
};

}  // namespace ksearch::translate::detail
