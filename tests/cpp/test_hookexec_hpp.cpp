// test_hookexec_hpp.cpp — tests of the C++ wrapper include/hookexec.hpp against the real library.
//
// No framework, like tests/c/test_capi.c: CHECK records a failure with file:line, every test
// runs, one line is printed per test, and the last line is exactly "N passed, M failed"; the
// exit status is non-zero if any test failed. Each test works in its own mkdtemp directory,
// passed as project_dir and home, so no configuration of the user running the tests is read.
#include <hookexec.hpp>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

/* ---------------------------------------------------------------- checks */

std::mutex g_check_mu;
int g_failed_checks = 0; // failures in the current test

void check_failed(const char *file, int line, const std::string &what) {
	std::lock_guard<std::mutex> lock(g_check_mu);
	g_failed_checks++;
	std::cout << "    " << file << ":" << line << ": " << what << std::endl;
}

#define CHECK(expr)                                                                   \
	do {                                                                              \
		if (!(expr)) check_failed(__FILE__, __LINE__, std::string("CHECK(") + #expr + ") failed"); \
	} while (0)

// Two values that must be equal; prints both.
#define CHECK_EQ(got, want)                                                                            \
	do {                                                                                               \
		const auto got_ = (got);                                                                       \
		const auto want_ = (want);                                                                     \
		if (!(got_ == want_))                                                                          \
			check_failed(__FILE__, __LINE__,                                                           \
			             std::string(#got " == " #want ": got ") + to_text(got_) + ", want " + to_text(want_)); \
	} while (0)

// Text that must contain a fragment.
#define CHECK_HAS(text, frag)                                                                          \
	do {                                                                                               \
		const std::string t_(text);                                                                    \
		if (t_.find(frag) == std::string::npos)                                                        \
			check_failed(__FILE__, __LINE__, std::string(#text " should contain ") + (frag) + "\n      got: " + t_); \
	} while (0)

// A statement that must throw hookexec::Error with the status code; `err` names the caught error
// inside `more`, further checks on it.
#define CHECK_THROWS_CODE(stmt, want_code, err, more)                                                   \
	do {                                                                                                \
		bool thrown_ = false;                                                                           \
		try {                                                                                           \
			stmt;                                                                                       \
		} catch (const hookexec::Error &err) {                                                          \
			thrown_ = true;                                                                             \
			if (err.code() != (want_code))                                                              \
				check_failed(__FILE__, __LINE__, std::string(#stmt ": code ") + std::to_string(err.code()) + \
				                                     " (" + err.what() + "), want " #want_code);        \
			more;                                                                                       \
		} catch (const std::exception &x) {                                                             \
			thrown_ = true;                                                                             \
			check_failed(__FILE__, __LINE__, std::string(#stmt " threw a non-hookexec exception: ") + x.what()); \
		}                                                                                               \
		if (!thrown_) check_failed(__FILE__, __LINE__, #stmt " did not throw");                         \
	} while (0)

// A statement that must not throw.
#define CHECK_NOTHROW(stmt)                                                                                 \
	do {                                                                                                    \
		try {                                                                                               \
			stmt;                                                                                           \
		} catch (const std::exception &x) {                                                                 \
			check_failed(__FILE__, __LINE__, std::string(#stmt " threw: ") + x.what());                     \
		}                                                                                                   \
	} while (0)

template <class T>
std::string to_text(const T &v) {
	if constexpr (std::is_convertible_v<T, std::string_view>) return "\"" + std::string(std::string_view(v)) + "\"";
	else return std::to_string(v);
}

/* ---------------------------------------------------------------- helpers */

// A temporary directory removed with the object.
struct TempDir {
	std::string path;
	TempDir() {
		char tmpl[] = "/tmp/hookexec-hpp-XXXXXX";
		if (!mkdtemp(tmpl)) {
			std::perror("mkdtemp");
			std::exit(2);
		}
		path = tmpl;
	}
	~TempDir() {
		std::error_code ec;
		std::filesystem::remove_all(path, ec);
	}
	TempDir(const TempDir &) = delete;
	TempDir &operator=(const TempDir &) = delete;
};

// Options JSON for dir (project and home), an inline config ("" for none) and extra members.
std::string options(const TempDir &dir, std::string_view config = "", std::string_view extra = "") {
	std::string o = R"({"project_dir":")" + dir.path + R"(","home":")" + dir.path + "\"";
	if (!config.empty()) o += ",\"config\":" + std::string(config);
	if (!extra.empty()) o += "," + std::string(extra);
	return o + "}";
}

// Polls pred every 10 ms until it holds or the timeout passes; returns its last value.
bool wait_for(const std::function<bool()> &pred, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
	const auto deadline = std::chrono::steady_clock::now() + timeout;
	while (!pred()) {
		if (std::chrono::steady_clock::now() > deadline) return pred();
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	}
	return true;
}

constexpr std::string_view kGuard =
    R"({"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","name":"guard",)"
    R"("command":"echo 'no rm' >&2; exit 2"}]}]}})";

constexpr std::string_view kRmPayload = R"({"tool_name":"Bash","tool_input":{"command":"rm -rf /"}})";

// An async Stop hook whose result reaches the listener after about 50 ms.
constexpr std::string_view kAsyncStop =
    R"({"hooks":{"Stop":[{"hooks":[{"type":"command","name":"async-hook","async":true,)"
    R"("command":"sleep 0.05; echo async-out"}]}]}})";

/* ---------------------------------------------------------------- tests */

void test_version() {
	CHECK_EQ(hookexec::version_number(), HOOKEXEC_VERSION_NUMBER);
	CHECK_EQ(hookexec::version(), std::string_view(HOOKEXEC_VERSION));
	CHECK(hookexec::compatible());
}

void test_fire_match_config_drain_reload() {
	TempDir dir;
	hookexec::Engine e = hookexec::Engine::open(options(dir, kGuard));
	CHECK(!e.closed());
	CHECK(e.handle() != nullptr);

	hookexec::String res = e.fire("PreToolUse", kRmPayload);
	CHECK_HAS(res.str(), "{\"event\":\"PreToolUse\",");
	CHECK_HAS(res.str(), "\"blocked\":true");
	CHECK_HAS(res.str(), "\"reason\":\"no rm\"");
	CHECK_EQ(res.view().size(), res.size());
	CHECK_EQ(std::string(res.c_str()), res.str());

	// an alias, and a tool nothing matches; the payload defaults to {}
	CHECK_HAS(e.fire("pre-tool", kRmPayload).str(), "\"blocked\":true");
	CHECK_HAS(e.fire("PreToolUse", R"({"tool_name":"Edit","tool_input":{}})").str(), "\"matched\":0,");
	CHECK_HAS(e.fire("Stop").str(), "\"matched\":0,");

	CHECK_EQ(e.match("PreToolUse", "Bash"), 1);
	CHECK_EQ(e.match("PreToolUse", "Edit"), 0);
	CHECK_EQ(e.match("Stop"), 0);
	CHECK_EQ(e.match_ids("PreToolUse", "Bash").str(), std::string(R"(["guard"])"));
	CHECK_EQ(e.match_ids("Stop").str(), std::string("[]"));
	CHECK_THROWS_CODE(e.match_ids("", "Bash"), HOOKEXEC_EINVAL, err, (void)err);
	CHECK_HAS(e.config().str(), "\"guard\"");
	CHECK_EQ(e.drain().str(), std::string("[]"));
	CHECK_NOTHROW(e.reload());
	CHECK_EQ(e.match("PreToolUse", "Bash"), 1);

	// bad arguments are Errors, not crashes: malformed payload, NUL bytes in a view
	CHECK_THROWS_CODE(e.fire("PreToolUse", "{not json"), HOOKEXEC_EINVAL, err, CHECK(err.what()[0] != '\0'));
	CHECK_THROWS_CODE(e.fire(std::string_view("Stop\0x", 6)), HOOKEXEC_EINVAL, err,
	                  CHECK_HAS(err.what(), "NUL"));
	CHECK_THROWS_CODE(e.match("", "Bash"), HOOKEXEC_EINVAL, err, (void)err);
	// a view into a larger buffer: only its bytes are passed (copied and NUL-terminated)
	const std::string buffer = "StopAndMore";
	CHECK_HAS(e.fire(std::string_view(buffer).substr(0, 4)).str(), "\"event\":\"Stop\"");
}

void test_string_raii() {
	hookexec::String empty;
	CHECK(empty.empty());
	CHECK_EQ(empty.view(), std::string_view(""));
	CHECK_EQ(std::string(empty.c_str()), std::string(""));

	TempDir dir;
	hookexec::Engine e = hookexec::Engine::open(options(dir));
	hookexec::String a = e.fire("Stop");
	const std::string text = a.str();
	CHECK(!a.empty());
	hookexec::String b = std::move(a); // moves ownership, no double free
	CHECK(a.empty());
	CHECK_EQ(b.str(), text);
	hookexec::String c;
	c = std::move(b);
	CHECK(b.empty());
	CHECK_EQ(c.str(), text);
	c = e.config(); // assignment frees the old text
	CHECK_HAS(c.str(), "\"hooks\"");
	char *raw = c.release(); // the caller owns it now
	CHECK(c.empty());
	CHECK(raw != nullptr);
	hookexec_free(raw);
	static_assert(!std::is_copy_constructible_v<hookexec::String>, "String is move-only");
	static_assert(!std::is_copy_assignable_v<hookexec::String>, "String is move-only");
}

void test_destructor_closes() {
	TempDir dir;
	hookexec_engine *h = nullptr;
	{
		hookexec::Engine e = hookexec::Engine::open(options(dir, kGuard));
		h = e.handle();
		char *res = nullptr;
		CHECK_EQ(hookexec_fire(h, "Stop", "{}", &res), HOOKEXEC_OK);
		hookexec_free(res);
	} // ~Engine closes
	CHECK(h != nullptr);
	char *res = reinterpret_cast<char *>(0x1);
	CHECK_EQ(hookexec_fire(h, "Stop", "{}", &res), HOOKEXEC_ECLOSED);
	CHECK(res == nullptr);
	CHECK_EQ(hookexec_match(h, "PreToolUse", "Bash"), -HOOKEXEC_ECLOSED);
	CHECK_EQ(hookexec_close(h), HOOKEXEC_ECLOSED); // closed exactly once already
}

void test_errors() {
	TempDir dir;
	// malformed options: EINVAL with the library's message
	CHECK_THROWS_CODE(hookexec::Engine::open("{\"profile\": "), HOOKEXEC_EINVAL, err, {
		CHECK(err.status() == hookexec::Code::invalid);
		CHECK(std::string(err.what()).size() > 0);
		CHECK(dynamic_cast<const hookexec::InvalidError *>(&err) != nullptr);
	});
	// an unknown option is named in the message
	CHECK_THROWS_CODE(hookexec::Engine::open(R"({"no_such_option":1})"), HOOKEXEC_EINVAL, err,
	                  CHECK_HAS(err.what(), "no_such_option"));
	// an unknown profile: ECONFIG, caught by its own type too
	const std::string bad_profile = options(dir, "", R"("profile":"no-such-profile")");
	CHECK_THROWS_CODE(hookexec::Engine::open(bad_profile), HOOKEXEC_ECONFIG, err, {
		CHECK(err.status() == hookexec::Code::config);
		CHECK_HAS(err.what(), "no-such-profile");
	});
	bool caught = false;
	try {
		hookexec::Engine::open(bad_profile);
	} catch (const hookexec::ConfigError &e) {
		caught = e.code() == HOOKEXEC_ECONFIG;
	} catch (...) {
	}
	CHECK(caught);
	// NUL inside the options view
	CHECK_THROWS_CODE(hookexec::Engine::open(std::string_view("{}\0", 3)), HOOKEXEC_EINVAL, err, (void)err);
	// Error itself: an empty message falls back to the code's static text
	const hookexec::Error plain(HOOKEXEC_EINTERNAL, "");
	CHECK_EQ(std::string(plain.what()), std::string(hookexec_errstr(HOOKEXEC_EINTERNAL)));
	CHECK_THROWS_CODE(hookexec::throw_error(99, "future code"), 99, err, CHECK_HAS(err.what(), "future code"));
}

void test_move_semantics() {
	TempDir dir;
	static_assert(!std::is_copy_constructible_v<hookexec::Engine>, "Engine is move-only");
	static_assert(!std::is_copy_assignable_v<hookexec::Engine>, "Engine is move-only");
	static_assert(std::is_nothrow_move_constructible_v<hookexec::Engine>, "moves do not throw");

	hookexec::Engine a = hookexec::Engine::open(options(dir, kGuard));
	hookexec_engine *h = a.handle();
	hookexec::Engine b = std::move(a);
	CHECK(a.handle() == nullptr);
	CHECK(a.closed());
	CHECK(b.handle() == h);
	CHECK_NOTHROW(a.close()); // harmless: closes nothing
	CHECK_NOTHROW(a.close());
	CHECK_THROWS_CODE(a.fire("Stop"), HOOKEXEC_ECLOSED, err, (void)err);
	CHECK_THROWS_CODE(a.on_listener([](std::string_view, std::string_view) {}), HOOKEXEC_ECLOSED, err, (void)err);
	CHECK_HAS(b.fire("PreToolUse", kRmPayload).str(), "\"blocked\":true"); // b still works

	// move assignment closes the target's old engine and takes the other one
	hookexec::Engine c = hookexec::Engine::open(options(dir));
	hookexec_engine *old = c.handle();
	c = std::move(b);
	CHECK(c.handle() == h);
	CHECK(b.handle() == nullptr);
	CHECK_EQ(hookexec_match(old, "Stop", nullptr), -HOOKEXEC_ECLOSED);
	CHECK_EQ(c.match("PreToolUse", "Bash"), 1);

	// a default-constructed engine is empty; moving into it works
	hookexec::Engine d;
	CHECK(d.closed());
	CHECK_THROWS_CODE(d.match("Stop"), HOOKEXEC_ECLOSED, err, (void)err);
	d = std::move(c);
	CHECK_EQ(d.match("PreToolUse", "Bash"), 1);
	c = std::move(c); // self-move leaves c as it was (empty)
	CHECK(c.closed());
}

void test_listener_async() {
	TempDir dir;
	hookexec::Engine e = hookexec::Engine::open(options(dir, kAsyncStop));
	std::mutex mu;
	std::condition_variable cv;
	int calls = 0, on_firing_thread = 0;
	std::string kind, json;
	const auto firing = std::this_thread::get_id();
	e.on_listener([&](std::string_view k, std::string_view j) {
		std::lock_guard<std::mutex> lock(mu);
		calls++;
		if (std::this_thread::get_id() == firing) on_firing_thread++;
		if (kind.empty()) {
			kind = std::string(k);
			json = std::string(j);
		}
		cv.notify_all();
	});
	CHECK_HAS(e.fire("Stop").str(), "\"blocked\":false");
	{
		std::unique_lock<std::mutex> lock(mu);
		CHECK(cv.wait_for(lock, std::chrono::seconds(10), [&] { return calls > 0; }));
		CHECK_EQ(kind, std::string("async"));
		CHECK_HAS(json, "{\"event\":\"Stop\",\"hook\":{");
		CHECK_HAS(json, "\"id\":\"async-hook\"");
		CHECK_HAS(json, "\"async\":true");
		CHECK_HAS(json, "\"stdout\":\"async-out\\n\"");
		CHECK_EQ(on_firing_thread, 0);
	}
	CHECK_EQ(e.listener_exceptions(), std::size_t(0));

	// removed with nullptr: later async results reach nobody
	e.on_listener(nullptr);
	const int before = [&] {
		std::lock_guard<std::mutex> lock(mu);
		return calls;
	}();
	e.fire("Stop");
	e.close(); // waits for the async hook
	std::lock_guard<std::mutex> lock(mu);
	CHECK_EQ(calls, before);
}

void test_listener_throwing() {
	TempDir dir;
	hookexec::Engine e = hookexec::Engine::open(options(dir, kAsyncStop));
	std::atomic<int> calls{0};
	e.on_listener([&](std::string_view, std::string_view) {
		calls++;
		throw std::runtime_error("listener failed");
	});
	e.fire("Stop");
	CHECK(wait_for([&] { return e.listener_exceptions() >= 1; }));
	// not even a non-std exception crosses into the library
	e.on_listener([&](std::string_view, std::string_view) {
		calls++;
		throw 42;
	});
	e.fire("Stop");
	CHECK(wait_for([&] { return e.listener_exceptions() >= 2; }));
	CHECK_EQ(calls.load(), 2);

	// the process and the engine carry on: a well-behaved listener gets the next result
	std::atomic<int> good{0};
	e.on_listener([&](std::string_view kind, std::string_view) {
		if (kind == "async") good++;
	});
	CHECK_HAS(e.fire("Stop").str(), "\"matched\":1,");
	CHECK(wait_for([&] { return good.load() >= 1; }));
	CHECK_EQ(e.listener_exceptions(), std::size_t(2));
}

void test_listener_swapped_while_running() {
	// Many async results arrive on library threads while the listener is replaced over and
	// over; every call lands on a live callable (run under ASan/TSan to see it sharply).
	TempDir dir;
	hookexec::Engine e = hookexec::Engine::open(
	    options(dir, R"({"hooks":{"Stop":[{"hooks":[{"type":"command","async":true,"command":"true"}]}]}})"));
	std::atomic<int> calls{0};
	for (int i = 0; i < 20; i++) {
		auto counter = std::make_shared<int>(i); // owned by the callable: freed when it is replaced
		e.on_listener([&calls, counter](std::string_view, std::string_view) {
			if (*counter >= 0) calls++;
		});
		e.fire("Stop");
	}
	e.close(); // waits for every async hook, so every result was delivered
	CHECK_EQ(calls.load(), 20);
	CHECK_EQ(e.listener_exceptions(), std::size_t(0));
}

void test_close() {
	TempDir dir;
	hookexec::Engine e = hookexec::Engine::open(options(dir, kGuard));
	hookexec_engine *h = e.handle();
	CHECK_NOTHROW(e.close());
	CHECK(e.closed());
	CHECK_NOTHROW(e.close()); // idempotent
	CHECK_NOTHROW(e.close());
	CHECK(e.handle() == h); // the handle stays a safe value to pass
	CHECK_EQ(hookexec_close(h), HOOKEXEC_ECLOSED);

	// every call after close throws Error with HOOKEXEC_ECLOSED and the library's message
	CHECK_THROWS_CODE(e.fire("PreToolUse", kRmPayload), HOOKEXEC_ECLOSED, err, {
		CHECK(err.status() == hookexec::Code::closed);
		CHECK(dynamic_cast<const hookexec::ClosedError *>(&err) != nullptr);
		CHECK_HAS(err.what(), "closed");
	});
	CHECK_THROWS_CODE(e.match("PreToolUse", "Bash"), HOOKEXEC_ECLOSED, err, (void)err);
	CHECK_THROWS_CODE(e.config(), HOOKEXEC_ECLOSED, err, (void)err);
	CHECK_THROWS_CODE(e.drain(), HOOKEXEC_ECLOSED, err, (void)err);
	CHECK_THROWS_CODE(e.reload(), HOOKEXEC_ECLOSED, err, CHECK_HAS(err.what(), "closed"));
	CHECK_THROWS_CODE(e.on_listener(nullptr), HOOKEXEC_ECLOSED, err, (void)err);

	// closed behind the wrapper's back through the C handle: close() stays quiet. (With a
	// listener set, the wrapper would deliberately leak its small listener slot here, since it
	// cannot know whether that other close still runs; so none is set, keeping ASan quiet.)
	hookexec::Engine f = hookexec::Engine::open(options(dir));
	CHECK_EQ(hookexec_close(f.handle()), HOOKEXEC_OK);
	CHECK_THROWS_CODE(f.fire("Stop"), HOOKEXEC_ECLOSED, err, (void)err);
	CHECK_NOTHROW(f.close());
	CHECK(f.closed());
}

void test_threads() {
	TempDir dir;
	const hookexec::Engine e = hookexec::Engine::open(options(dir, kGuard));
	std::atomic<int> right{0};
	std::vector<std::thread> threads;
	for (int t = 0; t < 8; t++) {
		threads.emplace_back([&] {
			for (int i = 0; i < 10; i++) {
				try {
					if (e.fire("PreToolUse", kRmPayload).view().find("\"blocked\":true") != std::string_view::npos)
						right++;
				} catch (const hookexec::Error &) {
				}
			}
		});
	}
	for (auto &th : threads) th.join();
	CHECK_EQ(right.load(), 80);
}

// One evaluator for prompt, agent and mcp_tool hooks; a throwing one is an error answer, and
// it survives moving the Engine.
void test_evaluator() {
	TempDir dir;
	hookexec::Engine e = hookexec::Engine::open(options(dir,
	    R"({"hooks":{"Stop":[{"hooks":[{"type":"prompt","prompt":"done?"},{"type":"agent","prompt":"verify"},)"
	    R"({"type":"mcp_tool","server":"s","tool":"t"}]}]}})",
	    R"("profile":"claude")"));
	std::atomic<int> calls{0};
	e.on_evaluator([&calls](std::string_view type, std::string_view hook, std::string_view payload) {
		calls++;
		if (payload.find("\"hook_event_name\":\"Stop\"") == std::string_view::npos) return hookexec::Answer::error("no event");
		if (type == "prompt") return hookexec::Answer::verdict(true, "fine");
		if (type == "agent") return hookexec::Answer::verdict(false, "tests fail");
		if (hook.find("\"server\":\"s\"") != std::string_view::npos)
			return hookexec::Answer::output(0, R"({"systemMessage":"tool ran"})");
		throw std::runtime_error("unexpected hook");
	});
	hookexec::Engine moved = std::move(e);
	const std::string r = moved.fire("Stop", "{}").str();
	CHECK_HAS(r, "\"blocked\":true");
	CHECK_HAS(r, "\"reason\":\"tests fail\"");
	CHECK_HAS(r, "\"system_message\":\"tool ran\"");
	CHECK_EQ(calls.load(), 3);
	moved.on_evaluator([](std::string_view, std::string_view, std::string_view) -> hookexec::Answer {
		throw std::runtime_error("evaluator down");
	});
	CHECK_HAS(moved.fire("Stop", "{}").str(), "evaluator down");
	moved.on_evaluator(nullptr);
	CHECK_HAS(moved.fire("Stop", "{}").str(), "no agent evaluator is registered");
	moved.close();
	CHECK_THROWS_CODE(moved.on_evaluator(nullptr), HOOKEXEC_ECLOSED, err, (void)err);
}

// Trust through the wrapper: approve, edit the script, refused, approve all, revoke; an
// unreadable store throws TrustError.
void test_trust() {
	TempDir dir;
	namespace fs = std::filesystem;
	const fs::path proj = fs::path(dir.path) / "proj", home = fs::path(dir.path) / "home";
	fs::create_directories(proj / ".claude/hooks");
	auto write = [](const fs::path &p, std::string_view text) {
		fs::create_directories(p.parent_path());
		FILE *f = std::fopen(p.c_str(), "w");
		if (f) {
			std::fwrite(text.data(), 1, text.size(), f);
			std::fclose(f);
		}
	};
	write(proj / ".claude/hooks/guard.sh", "echo 'guard says no' >&2\nexit 2\n");
	write(proj / ".claude/settings.json",
	      R"({"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"command":"bash .claude/hooks/guard.sh","name":"guard"}]}]}})");
	const std::string opts = R"({"profile":"claude","trust":"project","project_dir":")" + proj.string() +
	                         R"(","home":")" + home.string() + "\"}";
	auto e = hookexec::Engine::open(opts);
	CHECK_HAS(e.fire("PreToolUse", kRmPayload).view(), "\"reason\":\"new hook\"");
	CHECK_HAS(e.trust_list().view(), "\"status\":\"awaiting approval\"");
	CHECK_HAS(e.trust_approve("guard").view(), "\"status\":\"approved\"");
	CHECK_HAS(e.fire("PreToolUse", kRmPayload).view(), "\"blocked\":true");
	write(proj / ".claude/hooks/guard.sh", "exit 0\n");
	CHECK_HAS(e.fire("PreToolUse", kRmPayload).view(), "script .claude/hooks/guard.sh changed");
	CHECK_HAS(e.trust_approve_all().view(), "\"status\":\"approved\"");
	CHECK_HAS(e.fire("PreToolUse", kRmPayload).view(), "\"awaiting_approval\":[]");
	CHECK_HAS(e.trust_revoke("guard").view(), "\"status\":\"awaiting approval\"");
	CHECK_THROWS_CODE(e.trust_approve("nope"), HOOKEXEC_EINVAL, err, (void)err);
	write(home / ".config/hookexec/trust.json", "not json");
	CHECK_THROWS_CODE(e.trust_approve("guard"), HOOKEXEC_ETRUST, err,
	                  CHECK(dynamic_cast<const hookexec::TrustError *>(&err) != nullptr));
}

struct Test {
	const char *name;
	void (*fn)();
};

const Test kTests[] = {
    {"version", test_version},
    {"fire_match_config_drain_reload", test_fire_match_config_drain_reload},
    {"string_raii", test_string_raii},
    {"destructor_closes", test_destructor_closes},
    {"errors", test_errors},
    {"move_semantics", test_move_semantics},
    {"listener_async", test_listener_async},
    {"listener_throwing", test_listener_throwing},
    {"listener_swapped_while_running", test_listener_swapped_while_running},
    {"close", test_close},
    {"threads", test_threads},
    {"evaluator", test_evaluator},
    {"trust", test_trust},
};

} // namespace

int main(int argc, char **argv) {
	// A hang anywhere fails the run instead of blocking CI.
	std::thread([] {
		std::this_thread::sleep_for(std::chrono::seconds(180));
		std::cout << "test_hookexec_hpp: watchdog: still running after 180 s\n0 passed, 1 failed" << std::endl;
		std::_Exit(1);
	}).detach();

	int passed = 0, failed = 0;
	for (const Test &t : kTests) {
		if (argc > 1) { // optional filter: run only the tests named on the command line
			bool want = false;
			for (int a = 1; a < argc; a++) want = want || std::string_view(argv[a]) == t.name;
			if (!want) continue;
		}
		g_failed_checks = 0;
		const auto t0 = std::chrono::steady_clock::now();
		try {
			t.fn();
		} catch (const std::exception &x) {
			check_failed(__FILE__, __LINE__, std::string("uncaught exception: ") + x.what());
		}
		const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
		char line[160];
		if (g_failed_checks) {
			failed++;
			std::snprintf(line, sizeof line, "FAIL %s (%d failed checks, %.2f s)", t.name, g_failed_checks, dt);
		} else {
			passed++;
			std::snprintf(line, sizeof line, "ok   %s (%.2f s)", t.name, dt);
		}
		std::cout << line << std::endl;
	}
	std::cout << passed << " passed, " << failed << " failed" << std::endl;
	return failed ? 1 : 0;
}
