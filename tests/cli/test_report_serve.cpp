// `ksearch report DIR --serve`: the page and its stamp over HTTP, following the run as it is written,
// and a clean exit on Ctrl-C.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "run_fixture.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace ksearch;
using namespace ksearch::test;

extern char** environ;

namespace {

// `ksearch ARGS...` as a child process whose stdout the test reads line by line.
class Child {
 public:
  explicit Child(std::vector<std::string> args) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    args.insert(args.begin(), KSEARCH_EXECUTABLE);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (rc != 0) throw std::runtime_error("posix_spawn failed");
    out_ = fdopen(fds[0], "r");
  }
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      wait_exit();
    }
    if (out_) fclose(out_);
  }
  std::string line() {
    char buffer[4096];
    return fgets(buffer, sizeof buffer, out_) ? std::string(buffer) : std::string();
  }
  void signal(int sig) { kill(pid_, sig); }
  int wait_exit() {
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  }

 private:
  pid_t pid_ = 0;
  FILE* out_ = nullptr;
};

// The port in "serving ... at http://127.0.0.1:PORT/ ...".
int port_of(const std::string& line) {
  const auto at = line.find("http://127.0.0.1:");
  if (at == std::string::npos) return 0;
  return std::stoi(line.substr(at + std::string("http://127.0.0.1:").size()));
}

using ReportServe = TempDirTest;

TEST_F(ReportServe, ServesThePageAndFollowsTheRunUntilCtrlC) {
  const fs::path run = make_fixture_run(dir_ / "run", {.finished = false});

  Child server({"report", run.string(), "--serve", "--port", "0"});
  const std::string banner = server.line();
  const int port = port_of(banner);
  ASSERT_GT(port, 0) << banner;

  httplib::Client client("127.0.0.1", port);
  auto page = client.Get("/");
  ASSERT_TRUE(page) << "no answer from the server";
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("ksearch: tiny_softmax on cpu"), std::string::npos);
  EXPECT_NE(page->body.find("fetch('stamp'"), std::string::npos) << "the served page reloads itself";
  EXPECT_EQ(page->body.find("<tr id=\"c3\""), std::string::npos);
  auto stamp = client.Get("/stamp");
  ASSERT_TRUE(stamp);
  const std::string first = json::parse(stamp->body).at("stamp");
  EXPECT_NE(page->body.find("data-stamp=\"" + first + "\""), std::string::npos) << "the page carries the stamp it was made at";

  {  // the run goes on: one more evaluation
    auto writer = store::RunStore::open(run, store::RunStore::Access::write);
    add_evaluated(writer, 2, 3.0);
  }
  stamp = client.Get("/stamp");
  ASSERT_TRUE(stamp);
  EXPECT_NE(json::parse(stamp->body).at("stamp").get<std::string>(), first);
  page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_NE(page->body.find("<tr id=\"c3\""), std::string::npos) << "the page is rendered from the store on each request";

  server.signal(SIGINT);
  EXPECT_EQ(server.line(), "stopped\n");
  EXPECT_EQ(server.wait_exit(), 0);
}

TEST_F(ReportServe, BadInputIsAClearError) {
  EXPECT_EQ(run_ksearch("report . --serve --port 0", dir_, dir_ / "out.txt"), 2);
  EXPECT_NE(read_file(dir_ / "out.txt.err").find("not a run directory"), std::string::npos);
  make_fixture_run(dir_ / "run");
  EXPECT_EQ(run_ksearch("report run --port 9000", dir_, dir_ / "out.txt"), 2);  // --port needs --serve
  EXPECT_NE(read_file(dir_ / "out.txt.err").find("--serve"), std::string::npos);
}

}  // namespace
