// examples/cpp_host — a small C++ agent host driving hookexec through hookexec.hpp.
//
// It opens an engine with an inline config (a PreToolUse guard that blocks `rm -rf`, and a
// PostToolUse hook that reports back), fires the events an agent would fire around two
// shell tool calls, and prints each decision. Exit status 0 means the guard blocked the
// dangerous call and let the safe one through.
//
// The project directory and home are a fresh temporary directory, so no settings file of
// the user running the example is loaded: only the inline config below is in force.
#include <hookexec.hpp>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>

namespace {

// The hooks, in Claude Code's settings format. <<tool_input.command>> is replaced by the
// payload's value, quoted for the shell by hookexec, so the command text is data, never code.
constexpr std::string_view kConfig = R"json({"hooks":{
  "PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","name":"no-rm-rf",
    "command":"case <<tool_input.command>> in *'rm -rf'*) echo 'rm -rf is not allowed here' >&2; exit 2;; esac"}]}],
  "PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","name":"audit",
    "command":"printf '{\"systemMessage\":\"audit: %s finished\"}' <<tool_name>>"}]}]
}})json";

// Whether the top-level boolean `key` of a hookexec result is true. Results are compact JSON
// with the documented keys first, so the first occurrence is the top-level one.
bool json_true(std::string_view json, std::string_view key) {
	const std::string pat = "\"" + std::string(key) + "\":true";
	return json.find(pat) != std::string_view::npos;
}

// The first string value of `key` in json, with \" \\ \n unescaped ("" if absent). Enough
// for printing; a real host would use its JSON library.
std::string json_string(std::string_view json, std::string_view key) {
	const std::string pat = "\"" + std::string(key) + "\":\"";
	const auto at = json.find(pat);
	if (at == std::string_view::npos) return "";
	std::string out;
	for (auto i = at + pat.size(); i < json.size() && json[i] != '"'; i++) {
		if (json[i] == '\\' && i + 1 < json.size()) {
			const char c = json[++i];
			out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
		} else {
			out += json[i];
		}
	}
	return out;
}

// A PreToolUse/PostToolUse payload for the Bash tool running command.
std::string bash_payload(std::string_view command, std::string_view extra = "") {
	return std::string(R"({"tool_name":"Bash","tool_input":{"command":")") + std::string(command) + "\"}" +
	       std::string(extra) + "}";
}

// Asks the hooks whether command may run; prints and returns true when it is allowed.
bool may_run(const hookexec::Engine &engine, std::string_view command) {
	const hookexec::String res = engine.fire("PreToolUse", bash_payload(command));
	const bool blocked = json_true(res.view(), "blocked");
	std::cout << "PreToolUse  Bash `" << command << "`: " << (blocked ? "BLOCKED" : "allowed");
	if (const std::string reason = json_string(res.view(), "reason"); !reason.empty())
		std::cout << " (reason: " << reason << ")";
	std::cout << "\n";
	return !blocked;
}

} // namespace

int main() {
	char tmpl[] = "/tmp/hookexec-cpp-host-XXXXXX";
	if (!mkdtemp(tmpl)) {
		std::cerr << "cpp_host: cannot create a temporary directory\n";
		return 2;
	}
	const std::string dir = tmpl;
	int status = 1;
	try {
		std::cout << "hookexec " << hookexec::version() << "\n";
		const std::string options = R"({"project_dir":")" + dir + R"(","home":")" + dir + R"(","config":)" +
		                            std::string(kConfig) + "}";
		hookexec::Engine engine = hookexec::Engine::open(options);
		std::cout << "hooks for PreToolUse/Bash: " << engine.match("PreToolUse", "Bash") << "\n";

		// 1. The dangerous call: the guard must block it, so the tool never runs.
		const bool ran_dangerous = may_run(engine, "rm -rf /");

		// 2. A safe call: allowed, "run" it, then report the outcome to PostToolUse.
		const bool ran_safe = may_run(engine, "ls -la");
		if (ran_safe) {
			const hookexec::String post =
			    engine.fire("PostToolUse", bash_payload("ls -la", R"(,"tool_response":{"stdout":"a.txt\n","exit_code":0})"));
			std::cout << "PostToolUse Bash `ls -la`: system message: " << json_string(post.view(), "system_message")
			          << "\n";
		}

		engine.close(); // the destructor would too; closing explicitly waits for async hooks here
		status = (!ran_dangerous && ran_safe) ? 0 : 1;
		std::cout << (status == 0 ? "ok: the guard blocked rm -rf and let ls through\n"
		                          : "FAILED: the guard did not decide as expected\n");
	} catch (const hookexec::Error &e) {
		std::cerr << "cpp_host: hookexec error " << e.code() << ": " << e.what() << "\n";
		status = 2;
	}
	std::error_code ec;
	std::filesystem::remove_all(dir, ec);
	return status;
}
