// Spec strings and TOML config sections.
#include <gtest/gtest.h>

#include "llm/llm.hpp"

using namespace ksearch::llm;

TEST(Spec, Providers) {
  auto c = parse_provider_spec("openai:gpt-5");
  EXPECT_EQ(c.provider, Provider::OpenAIChat);
  EXPECT_EQ(c.model, "gpt-5");
  EXPECT_EQ(c.api_key_env, "OPENAI_API_KEY");
  EXPECT_EQ(c.max_tokens_field, "max_completion_tokens");
  EXPECT_FALSE(c.api_key_optional);

  c = parse_provider_spec("openai-compatible:llama3.1:8b");
  EXPECT_EQ(c.provider, Provider::OpenAIChat);
  EXPECT_EQ(c.provider_name, "openai-compatible");
  EXPECT_EQ(c.model, "llama3.1:8b");  // the model keeps its own colon
  EXPECT_EQ(c.max_tokens_field, "max_tokens");
  EXPECT_TRUE(c.api_key_optional);

  c = parse_provider_spec("openai-responses:o3");
  EXPECT_EQ(c.provider, Provider::OpenAIResponses);

  c = parse_provider_spec("anthropic:claude-opus-4-6");
  EXPECT_EQ(c.provider, Provider::Anthropic);
  EXPECT_EQ(c.api_key_env, "ANTHROPIC_API_KEY");

  c = parse_provider_spec("gemini:gemini-2.5-pro");
  EXPECT_EQ(c.provider, Provider::Gemini);
  EXPECT_EQ(c.api_key_env, "GEMINI_API_KEY");
  EXPECT_EQ(default_base_url(c.provider), "https://generativelanguage.googleapis.com/v1beta");
}

TEST(Spec, Errors) {
  for (const char* bad : {"gpt-5", "openai:", ":gpt-5", "mystery:model", ""}) {
    try {
      parse_provider_spec(bad);
      FAIL() << bad;
    } catch (const LlmError& e) {
      EXPECT_EQ(e.category(), ErrorCategory::Config) << bad;
    }
  }
}

// Any other base URL would fail every call as a transport error, retried, or reach another protocol.
TEST(Spec, BaseUrlMustBeHttp) {
  for (const char* bad : {"notaurl", "ftp://127.0.0.1/v1", "file:///etc/passwd", "127.0.0.1:8000/v1"}) {
    ProviderConfig cfg = parse_provider_spec("openai-compatible:m");
    cfg.base_url = bad;
    try {
      make_client(cfg, nullptr);
      ADD_FAILURE() << bad;
    } catch (const LlmError& e) {
      EXPECT_EQ(e.category(), ErrorCategory::Config) << bad;
      EXPECT_NE(std::string(e.what()).find("must start with http:// or https://"), std::string::npos) << e.what();
    }
  }
  ProviderConfig ok = parse_provider_spec("openai-compatible:m");
  ok.base_url = "http://127.0.0.1:8000/v1";
  EXPECT_NO_THROW(make_client(ok, nullptr));
}

TEST(TomlConfig, SectionIsRead) {
  const char* text = R"(
[llm.planner]
model = "openai-compatible:qwen3-coder"
base_url = "http://127.0.0.1:8000/v1"
api_key_env = ""
temperature = 0.7
max_output_tokens = 4096
reasoning_effort = "medium"
connect_timeout_s = 3
timeout_s = 120.5
max_retries = 6
retry_base_delay_s = 0.5
)";
  ProviderConfig c = provider_config_from_toml_string(text, "llm.planner");
  EXPECT_EQ(c.provider, Provider::OpenAIChat);
  EXPECT_EQ(c.model, "qwen3-coder");
  EXPECT_EQ(c.base_url, "http://127.0.0.1:8000/v1");
  EXPECT_EQ(c.api_key_env, "");
  EXPECT_DOUBLE_EQ(*c.temperature, 0.7);
  EXPECT_EQ(*c.max_output_tokens, 4096);
  EXPECT_EQ(*c.reasoning_effort, "medium");
  EXPECT_DOUBLE_EQ(c.connect_timeout_s, 3);
  EXPECT_DOUBLE_EQ(c.timeout_s, 120.5);
  EXPECT_EQ(c.max_retries, 6);
  EXPECT_DOUBLE_EQ(c.retry_base_delay_s, 0.5);
  EXPECT_EQ(c.max_tokens_field, "max_tokens");  // provider default kept
}

TEST(TomlConfig, Errors) {
  auto category = [](const char* text, const char* section) {
    try {
      provider_config_from_toml_string(text, section);
    } catch (const LlmError& e) {
      return std::optional(e.category());
    }
    return std::optional<ErrorCategory>();
  };
  EXPECT_EQ(category("[llm]\nmodel = \"openai:gpt-5\"\n", "other"), ErrorCategory::Config);
  EXPECT_EQ(category("[llm]\nbase_url = \"x\"\n", "llm"), ErrorCategory::Config);
  EXPECT_EQ(category("[llm]\nmodel = \"openai:gpt-5\"\ntemperature = \"hot\"\n", "llm"), ErrorCategory::Config);
  EXPECT_EQ(category("[llm\nmodel=", "llm"), ErrorCategory::Config);
  // Keys belong in the environment, never in config files.
  try {
    provider_config_from_toml_string("[llm]\nmodel = \"openai:gpt-5\"\napi_key = \"sk-live-123\"\n", "llm");
    FAIL();
  } catch (const LlmError& e) {
    EXPECT_EQ(std::string(e.what()).find("sk-live-123"), std::string::npos);
  }
  EXPECT_THROW(load_provider_config("/nonexistent/ksearch.toml", "llm"), LlmError);
}
