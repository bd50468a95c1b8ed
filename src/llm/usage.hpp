#pragma once
// llm/usage: token counts of one model call, normalised across providers.
#include <cstdint>

namespace ksearch::llm {

// Token counts of one call, normalised across providers:
// input_tokens includes cached_input_tokens and cache_write_tokens;
// output_tokens includes reasoning_tokens (all are billed as output).
struct Usage {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cached_input_tokens = 0;  // prompt-cache reads
  int64_t cache_write_tokens = 0;   // Anthropic cache creation
  int64_t reasoning_tokens = 0;

  int64_t total() const { return input_tokens + output_tokens; }
  Usage& operator+=(const Usage& o) {
    input_tokens += o.input_tokens;
    output_tokens += o.output_tokens;
    cached_input_tokens += o.cached_input_tokens;
    cache_write_tokens += o.cache_write_tokens;
    reasoning_tokens += o.reasoning_tokens;
    return *this;
  }
};

}  // namespace ksearch::llm
