// Tests of the Hugging Face import: exact parameter counts of shipped configs and errors with lines.
#include "planner/io/hf_config.hpp"

#include <gtest/gtest.h>

#include "planner/core/digest.hpp"
#include "planner/io/transformer_parser.hpp"
#include "test_util.hpp"

namespace shardscope {
namespace {

Model load(const std::string& file) {
  return generate_transformer(load_hf_config_file(test::source_dir() + "/scenarios/hf/" + file, 1024));
}

TEST(HfConfig, ExactParameterCounts) {
  EXPECT_EQ(load("gpt2.json").parameters(), 124439808);
  EXPECT_EQ(load("pythia-160m.json").parameters(), 162322944);
  EXPECT_EQ(load("opt-125m.json").parameters(), 125239296);
  EXPECT_EQ(load("llama-2-7b.json").parameters(), 6738415616);
  EXPECT_EQ(load("mistral-7b-v0.1.json").parameters(), 7241732096);
  EXPECT_EQ(load("gpt-neox-20b.json").parameters(), 20554567680);
  const Model mixtral = load("mixtral-8x7b-v0.1.json");
  EXPECT_EQ(mixtral.parameters(), 46702792704);
  EXPECT_EQ(mixtral.active_parameters(), 12879925248);
  EXPECT_EQ(mixtral.operators[2].kind, OperatorKind::moe);
  // The shipped preset is the same model.
  const Model preset = generate_transformer(model_preset("mixtral-8x7b", "test", 1, "model.preset"));
  EXPECT_EQ(preset.parameters(), 46702792704);
  EXPECT_EQ(preset.active_parameters(), 12879925248);
  EXPECT_EQ(model_digest(preset), model_digest(generate_transformer(load_hf_config_file(
                                      test::source_dir() + "/scenarios/hf/mixtral-8x7b-v0.1.json", 4096))));
}

TEST(HfConfig, SequenceLengthDefaultsToTheContextAndIsBounded) {
  const std::string path = test::source_dir() + "/scenarios/hf/gpt2.json";
  EXPECT_EQ(load_hf_config_file(path).sequence_length, 1024);
  test::expect_input_error([&] { load_hf_config_file(path, 4096); }, path, 15, "sequence_length", "exceeds");
}

TEST(HfConfig, UnknownModelTypeNamesTheLine) {
  const std::string text = "{\n  \"model_type\": \"t5\",\n  \"d_model\": 512\n}\n";
  test::expect_input_error([&] { parse_hf_config_string(text, "t5.json"); }, "t5.json", 2, "model_type",
                           "supported: llama, mistral, mixtral, gpt2, gpt_neox, opt");
}

TEST(HfConfig, UnknownSizeChangingKeyIsAnError) {
  const std::string text =
      "{\"model_type\": \"llama\", \"hidden_size\": 64, \"intermediate_size\": 128,\n"
      " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 100,\n"
      " \"max_position_embeddings\": 64,\n \"num_experts\": 4}";
  test::expect_input_error([&] { parse_hf_config_string(text, "c.json"); }, "c.json", 4, "num_experts",
                           "cannot tell whether it changes the model's size");
}

TEST(HfConfig, OptProjectionIsRefused) {
  const std::string text =
      "{\"model_type\": \"opt\", \"hidden_size\": 1024, \"ffn_dim\": 4096, \"num_hidden_layers\": 24,\n"
      "\"num_attention_heads\": 16, \"vocab_size\": 50272, \"max_position_embeddings\": 2048,\n"
      "\"word_embed_proj_dim\": 512}";
  test::expect_input_error([&] { parse_hf_config_string(text, "opt-350m.json"); }, "opt-350m.json", 3,
                           "word_embed_proj_dim", "not supported");
}

TEST(HfConfig, MalformedJsonNamesTheLine) {
  const std::string text = "{\n  \"model_type\": \"gpt2\",\n  \"n_embd\": 768,,\n}";
  test::expect_input_error([&] { parse_hf_config_string(text, "bad.json"); }, "bad.json", 3, "",
                           "malformed JSON");
}

TEST(HfConfig, NumberBeyondDoubleRangeIsMalformedJsonNotACrash) {
  // Regression: found by fuzz/hf_config_fuzzer (nlohmann throws out_of_range, not parse_error).
  test::expect_input_error([] { parse_hf_config_string("{\"n_embd\": 73e33333}", "big.json"); }, "big.json",
                           1, "", "malformed JSON");
}

TEST(HfConfig, WrongTypeAndMissingKey) {
  const std::string wrong =
      "{\"model_type\": \"gpt2\", \"n_embd\": \"768\", \"n_layer\": 12, \"n_head\": 12, \"n_positions\": "
      "1024, "
      "\"vocab_size\": 50257}";
  test::expect_input_error([&] { parse_hf_config_string(wrong, "w.json"); }, "w.json", 1, "n_embd",
                           "expected an integer");
  const std::string missing = "{\"model_type\": \"gpt2\", \"n_embd\": 768}";
  test::expect_input_error([&] { parse_hf_config_string(missing, "m.json"); }, "m.json", 0, "n_layer",
                           "missing");
  test::expect_input_error([&] { parse_hf_config_string("[1, 2]", "a.json"); }, "a.json", 1, "",
                           "JSON object");
  test::expect_input_error([&] { parse_hf_config_string("{}", "e.json"); }, "e.json", 0, "model_type",
                           "missing");
}

// A Hugging Face hub id is not a file and shardscope downloads nothing: it says so plainly and how to get the
// file (issue 36, item 4); a missing file with a path or a .json name keeps the plain message.
TEST(HfConfig, AHubIdSaysToDownloadItsConfigFirst) {
  test::expect_input_error([] { load_hf_config_file("meta-llama/Llama-3.1-8B"); }, "meta-llama/Llama-3.1-8B",
                           0, "",
                           "shardscope reads no network: a Hugging Face hub id needs its config.json "
                           "downloaded first (huggingface-cli download meta-llama/Llama-3.1-8B config.json)");
  for (const std::string missing : {"nope/config.json", "/tmp/no/such/dir/config.json", "./x/y"}) {
    try {
      load_hf_config_file(missing);
      ADD_FAILURE() << missing;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).find("hub id"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace shardscope
