/*
 * hookexec.hpp — a header-only C++17 wrapper of the C interface in hookexec.h.
 *
 * What it adds: ownership (Engine closes its handle, String frees its text, both move-only),
 * exceptions that keep the library's status code and message (Error), and a listener that
 * takes any callable. What it deliberately does not do: parse JSON (results stay the
 * library's JSON text, read them with the JSON library you already use), retry, or hide a
 * status code the C layer reports.
 *
 * Threads: like the C handle, one Engine may be used from many threads at once (fire, match,
 * match_ids, config, reload, drain, on_listener); close(), moving, assigning and destroying
 * it need exclusive access, as for any C++ object.
 *
 * Link with -lhookexec; every function below is inline and calls only the public C API.
 */
#ifndef HOOKEXEC_HPP
#define HOOKEXEC_HPP

#include <atomic>
#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "hookexec.h"

namespace hookexec {

/* ---------------------------------------------------------------- errors */

// The status codes of hookexec.h; a code the header does not name may still arrive (see code()).
enum class Code : int {
	ok = HOOKEXEC_OK,             // success (never carried by an Error)
	invalid = HOOKEXEC_EINVAL,    // bad argument: malformed JSON, unknown option, NUL in a string
	config = HOOKEXEC_ECONFIG,    // the options name an unusable configuration (unknown profile)
	closed = HOOKEXEC_ECLOSED,    // the engine was closed (or moved from)
	misuse = HOOKEXEC_EMISUSE,    // not an engine handle; header and library versions differ
	fork = HOOKEXEC_EFORK,        // called in a child process after fork()
	internal = HOOKEXEC_EINTERNAL, // a bug in hookexec; the message says where
	trust = HOOKEXEC_ETRUST        // the trust store cannot be read or written
};

// A failed call: what() is the library's message, code() its HOOKEXEC_E* status.
class Error : public std::runtime_error {
public:
	// An error with a status code and message (the code's static text if message is empty).
	Error(int code, const std::string &message)
	    : std::runtime_error(message.empty() ? std::string(hookexec_errstr(code)) : message), code_(code) {}
	// The HOOKEXEC_E* status code (an int: the library may add codes).
	int code() const noexcept { return code_; }
	// The status code as the enum (compare with Code::closed etc.).
	Code status() const noexcept { return static_cast<Code>(code_); }

private:
	int code_;
};

// One subclass per status code, so that a caller may catch just the ones it handles.
template <Code C>
class ErrorOf : public Error {
public:
	// An error of this code with the library's message.
	explicit ErrorOf(const std::string &message) : Error(static_cast<int>(C), message) {}
};
using InvalidError = ErrorOf<Code::invalid>;   // HOOKEXEC_EINVAL
using ConfigError = ErrorOf<Code::config>;     // HOOKEXEC_ECONFIG
using ClosedError = ErrorOf<Code::closed>;     // HOOKEXEC_ECLOSED
using MisuseError = ErrorOf<Code::misuse>;     // HOOKEXEC_EMISUSE
using ForkError = ErrorOf<Code::fork>;         // HOOKEXEC_EFORK
using InternalError = ErrorOf<Code::internal>; // HOOKEXEC_EINTERNAL
using TrustError = ErrorOf<Code::trust>;       // HOOKEXEC_ETRUST

// Throws the Error subclass for code (plain Error for codes this header does not know).
[[noreturn]] inline void throw_error(int code, const std::string &message) {
	switch (static_cast<Code>(code)) {
	case Code::invalid: throw InvalidError(message);
	case Code::config: throw ConfigError(message);
	case Code::closed: throw ClosedError(message);
	case Code::misuse: throw MisuseError(message);
	case Code::fork: throw ForkError(message);
	case Code::internal: throw InternalError(message);
	case Code::trust: throw TrustError(message);
	case Code::ok: break;
	}
	throw Error(code, message);
}

/* ---------------------------------------------------------------- version */

// The library's version text at run time, e.g. "0.1.0" (compare HOOKEXEC_VERSION).
inline std::string_view version() noexcept { return hookexec_version(); }

// The library's version number at run time (X*1000000 + Y*1000 + Z).
inline int version_number() noexcept { return hookexec_version_number(); }

// Whether the loaded library serves this header: same major, not older, and for 0.x the same minor.
inline bool compatible() noexcept {
	const int lib = hookexec_version_number(), hdr = HOOKEXEC_VERSION_NUMBER;
	return lib / 1000000 == hdr / 1000000 && lib >= hdr && (hdr >= 1000000 || lib / 1000 == hdr / 1000);
}

/* ---------------------------------------------------------------- String */

// Text the library handed out (a result, the config, drained output); freed with hookexec_free.
class String {
public:
	// An empty String (view() is "").
	String() noexcept = default;
	// Takes ownership of p, which the library allocated (NULL makes an empty String).
	explicit String(char *p) noexcept : p_(p), n_(p ? std::strlen(p) : 0) {}
	String(String &&o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
	String &operator=(String &&o) noexcept {
		if (this != &o) {
			hookexec_free(p_);
			p_ = std::exchange(o.p_, nullptr);
			n_ = std::exchange(o.n_, 0);
		}
		return *this;
	}
	String(const String &) = delete;
	String &operator=(const String &) = delete;
	// Frees the text with hookexec_free.
	~String() { hookexec_free(p_); }

	// The text, valid while this String lives and is not moved from.
	std::string_view view() const noexcept { return {p_ ? p_ : "", n_}; }
	// A copy of the text that outlives this String.
	std::string str() const { return std::string(view()); }
	// The NUL-terminated text ("" when empty), valid like view().
	const char *c_str() const noexcept { return p_ ? p_ : ""; }
	// The length in bytes.
	std::size_t size() const noexcept { return n_; }
	// Whether there is no text.
	bool empty() const noexcept { return n_ == 0; }
	// Gives up ownership; the caller frees the result with hookexec_free.
	char *release() noexcept {
		n_ = 0;
		return std::exchange(p_, nullptr);
	}

private:
	char *p_ = nullptr;
	std::size_t n_ = 0;
};

// Writes the text of s.
inline std::ostream &operator<<(std::ostream &os, const String &s) { return os << s.view(); }

/* ---------------------------------------------------------------- listener plumbing */

// Receives (kind, json) of what happens outside a fire (kind "async": an async hook's result).
// Both views are valid only during the call.
using Listener = std::function<void(std::string_view kind, std::string_view json)>;

namespace detail {

// A NUL-terminated copy of s for the C API; a NUL inside s would silently cut the text, so it
// is an invalid argument instead.
inline std::string c_arg(std::string_view s, const char *what) {
	if (s.find('\0') != std::string_view::npos)
		throw InvalidError(std::string("hookexec: ") + what + " contains a NUL byte");
	return std::string(s);
}

// Throws the calling thread's last error for code (hookexec_errmsg is per thread).
[[noreturn]] inline void throw_last(int code) { throw_error(code, hookexec_errmsg()); }

// Throws with the text the library returned through error_out, freeing it.
[[noreturn]] inline void throw_owned(int code, char *err) {
	String owned(err);
	throw_error(code, owned.empty() ? std::string(hookexec_errmsg()) : owned.str());
}

// What the C listener's user_data points at. It lives on the heap, so moving an Engine never
// moves it, and as long as the Engine (the library calls it no more once close succeeded). The callable
// is swapped under mu and called through a shared_ptr copy, so replacing it while a call
// runs on a library thread is safe and the old one finishes undisturbed.
struct ListenerSlot {
	std::mutex mu;                 // guards fn
	std::shared_ptr<Listener> fn;  // the user's callable; empty means none
	std::mutex set_mu;             // serialises on_listener, keeping fn and the C registration in step
	bool registered = false;       // the trampoline was handed to the library (under set_mu)
	std::atomic<std::size_t> exceptions{0}; // exceptions the user's callable threw
};

extern "C" {
// The C listener: calls the slot's callable and catches everything it throws, since an
// exception must never unwind into the library's (Go) frames.
inline void hookexec_hpp_listener_trampoline_v1(void *user_data, const char *kind, const char *json) {
	auto *slot = static_cast<ListenerSlot *>(user_data);
	try {
		std::shared_ptr<Listener> fn;
		{
			std::lock_guard<std::mutex> lock(slot->mu);
			fn = slot->fn;
		}
		if (fn && *fn) (*fn)(kind ? kind : "", json ? json : "");
	} catch (...) {
		slot->exceptions.fetch_add(1, std::memory_order_relaxed);
	}
}
}

} // namespace detail

// What an evaluator answers (see hookexec_evaluator_fn): an outcome in a command's terms, a
// verdict, or an error. Build one with Answer::output, Answer::verdict or Answer::error.
struct Answer {
	enum class Kind { output, verdict, error };
	Kind kind = Kind::error;
	int code = 0;          // exit code, or 1/0 for a verdict's ok
	std::string out, err;  // stdout and stderr; a verdict's reason is out, an error's text err
	static Answer output(int exit_code, std::string stdout_text, std::string stderr_text = {}) {
		return Answer{Kind::output, exit_code, std::move(stdout_text), std::move(stderr_text)};
	}
	static Answer verdict(bool ok, std::string reason = {}) { return Answer{Kind::verdict, ok ? 1 : 0, std::move(reason), {}}; }
	static Answer error(std::string message) { return Answer{Kind::error, 0, {}, std::move(message)}; }
};

// Runs prompt, agent and mcp_tool hooks: (type, hook definition JSON, payload JSON) -> Answer.
using Evaluator = std::function<Answer(std::string_view type, std::string_view hook_json, std::string_view payload_json)>;

namespace detail {

// What the C evaluator's user_data points at; like ListenerSlot it outlives moves of the Engine.
struct EvaluatorSlot {
	std::mutex mu;
	std::shared_ptr<Evaluator> fn;
	std::mutex set_mu;
	bool registered = false;
};

extern "C" {
// The C evaluator: calls the slot's callable and turns an exception into an error answer.
inline void hookexec_hpp_evaluator_trampoline_v1(void *user_data, const char *type, const char *hook,
                                                 const char *payload, hookexec_answer *answer) {
	auto *slot = static_cast<EvaluatorSlot *>(user_data);
	try {
		std::shared_ptr<Evaluator> fn;
		{
			std::lock_guard<std::mutex> lock(slot->mu);
			fn = slot->fn;
		}
		if (!fn || !*fn) {
			hookexec_answer_error(answer, "hookexec.hpp: no evaluator");
			return;
		}
		const Answer a = (*fn)(type ? type : "", hook ? hook : "", payload ? payload : "");
		switch (a.kind) {
		case Answer::Kind::output: hookexec_answer_output(answer, a.code, a.out.c_str(), a.err.c_str()); break;
		case Answer::Kind::verdict: hookexec_answer_verdict(answer, a.code, a.out.c_str()); break;
		case Answer::Kind::error: hookexec_answer_error(answer, a.err.c_str()); break;
		}
	} catch (const std::exception &ex) {
		hookexec_answer_error(answer, ex.what());
	} catch (...) {
		hookexec_answer_error(answer, "hookexec.hpp: the evaluator threw");
	}
}
}

} // namespace detail

/* ---------------------------------------------------------------- Engine */

// An open engine (hookexec_engine*); closed by close() or the destructor. Move-only.
class Engine {
public:
	// An empty engine: every call throws ClosedError until one is moved in.
	Engine() noexcept = default;
	Engine(Engine &&o) noexcept
	    : h_(std::exchange(o.h_, nullptr)), closed_(std::exchange(o.closed_, true)), slot_(std::move(o.slot_)),
	      eval_(std::move(o.eval_)) {}
	Engine &operator=(Engine &&o) noexcept {
		if (this != &o) {
			close();
			h_ = std::exchange(o.h_, nullptr);
			closed_ = std::exchange(o.closed_, true);
			slot_ = std::move(o.slot_);
			eval_ = std::move(o.eval_);
		}
		return *this;
	}
	Engine(const Engine &) = delete;
	Engine &operator=(const Engine &) = delete;
	// Closes the engine (see close()).
	~Engine() { close(); }

	// Opens an engine (options as for hookexec_open); throws Error with the library's message.
	static Engine open(std::string_view options_json = "{}") {
		if (!compatible())
			throw MisuseError(std::string("hookexec: hookexec.hpp is for version " HOOKEXEC_VERSION
			                              " but the loaded libhookexec is ") + hookexec_version());
		const std::string opts = detail::c_arg(options_json, "options_json");
		auto slot = std::make_unique<detail::ListenerSlot>(); // before open: nothing to undo if it throws
		auto eval = std::make_unique<detail::EvaluatorSlot>();
		hookexec_engine *h = nullptr;
		char *err = nullptr;
		const int rc = hookexec_open(opts.c_str(), &h, &err);
		if (rc != HOOKEXEC_OK) detail::throw_owned(rc, err);
		hookexec_free(err);
		Engine e;
		e.h_ = h;
		e.closed_ = false;
		e.slot_ = std::move(slot);
		e.eval_ = std::move(eval);
		return e;
	}

	// Fires event with payload_json (a JSON object) and returns the result JSON.
	String fire(std::string_view event, std::string_view payload_json = "{}") const {
		const std::string ev = detail::c_arg(event, "event"), pl = detail::c_arg(payload_json, "payload_json");
		char *out = nullptr;
		const int rc = hookexec_fire(handle_or_throw(), ev.c_str(), pl.c_str(), &out);
		if (rc != HOOKEXEC_OK) detail::throw_last(rc);
		return String(out);
	}

	// How many enabled hooks would run for event and subject ("" for events without one).
	int match(std::string_view event, std::string_view subject = {}) const {
		const std::string ev = detail::c_arg(event, "event"), sub = detail::c_arg(subject, "subject");
		const int n = hookexec_match(handle_or_throw(), ev.c_str(), sub.c_str());
		if (n < 0) detail::throw_last(-n);
		return n;
	}

	// The ids of the enabled hooks that would run for event and subject, in config order (a
	// JSON array of strings; the ids of config()'s hooks).
	String match_ids(std::string_view event, std::string_view subject = {}) const {
		const std::string ev = detail::c_arg(event, "event"), sub = detail::c_arg(subject, "subject");
		char *out = nullptr;
		const int rc = hookexec_match_ids(handle_or_throw(), ev.c_str(), sub.c_str(), &out);
		if (rc != HOOKEXEC_OK) detail::throw_last(rc);
		return String(out);
	}

	// The configuration in force as JSON (hooks, sources, warnings).
	String config() const {
		char *out = nullptr;
		const int rc = hookexec_config(handle_or_throw(), &out);
		if (rc != HOOKEXEC_OK) detail::throw_last(rc);
		return String(out);
	}

	// Re-reads every configuration source; on failure the old configuration stays and it throws.
	void reload() const {
		char *err = nullptr;
		const int rc = hookexec_reload(handle_or_throw(), &err);
		if (rc != HOOKEXEC_OK) detail::throw_owned(rc, err);
		hookexec_free(err);
	}

	// The project-level hooks and their approval state as JSON (see hookexec_trust_list).
	String trust_list() const {
		char *out = nullptr;
		const int rc = hookexec_trust_list(handle_or_throw(), &out);
		if (rc != HOOKEXEC_OK) detail::throw_last(rc);
		return String(out);
	}

	// Approves the project-level hook id as it is now; returns the report afterwards.
	String trust_approve(std::string_view id) const { return trust_change(hookexec_trust_approve, id, "id"); }

	// Approves every project-level hook awaiting approval; returns the report afterwards.
	String trust_approve_all() const {
		char *out = nullptr;
		const int rc = hookexec_trust_approve(handle_or_throw(), nullptr, &out);
		if (rc != HOOKEXEC_OK) detail::throw_last(rc);
		return String(out);
	}

	// Removes the approvals of hook id; returns the report afterwards.
	String trust_revoke(std::string_view id) const { return trust_change(hookexec_trust_revoke, id, "id"); }

	// Returns and clears the queued output of pipe_output hooks (a JSON array of strings).
	String drain() const {
		char *out = nullptr;
		const int rc = hookexec_drain(handle_or_throw(), &out);
		if (rc != HOOKEXEC_OK) detail::throw_last(rc);
		return String(out);
	}

	// Sets the listener, any callable (kind, json) taking string_views; nullptr removes it. It is
	// called on library threads, possibly several at once; exceptions it throws are caught and
	// counted (listener_exceptions()). It must not close or destroy this Engine (that waits for it).
	template <class F>
	void on_listener(F &&f) {
		static_assert(std::is_constructible_v<Listener, F &&>,
		              "on_listener needs a copyable callable taking (std::string_view kind, std::string_view json)");
		set_listener(Listener(std::forward<F>(f)));
	}

	// Sets the evaluator of prompt, agent and mcp_tool hooks (hookexec_set_evaluator), any
	// callable (type, hook_json, payload_json) -> Answer; nullptr removes it. It runs on library
	// threads under the hook's timeout; an exception it throws is an error answer.
	template <class F>
	void on_evaluator(F &&f) {
		static_assert(std::is_constructible_v<Evaluator, F &&>,
		              "on_evaluator needs a copyable callable (std::string_view type, std::string_view hook_json, "
		              "std::string_view payload_json) -> hookexec::Answer");
		set_evaluator(Evaluator(std::forward<F>(f)));
	}

	// How many exceptions the listener threw (each was caught before it could reach the library).
	std::size_t listener_exceptions() const noexcept {
		return slot_ ? slot_->exceptions.load(std::memory_order_relaxed) : 0;
	}

	// Closes the engine, waiting for async hooks up to close_timeout_ms. Idempotent, never throws.
	void close() noexcept {
		if (!h_ || closed_) return;
		closed_ = true;
		const int rc = hookexec_close(h_);
		// After a successful close the library calls the listener no more; otherwise (the handle
		// was closed behind our back and may still be closing, or after fork) it might, so a
		// slot it was given is leaked rather than freed under a running call.
		if (rc != HOOKEXEC_OK && slot_ && slot_->registered) (void)slot_.release();
		if (rc != HOOKEXEC_OK && eval_ && eval_->registered) (void)eval_.release();
	}

	// Whether close() ran (or the engine is empty).
	bool closed() const noexcept { return !h_ || closed_; }

	// The C handle, for calls this wrapper lacks; still owned by this Engine. It stays a safe
	// value to pass after close() (the library answers HOOKEXEC_ECLOSED); NULL when empty.
	hookexec_engine *handle() const noexcept { return h_; }

private:
	// The handle, even when closed (the library then reports ECLOSED with its message).
	hookexec_engine *handle_or_throw() const {
		if (!h_) throw ClosedError("hookexec: the Engine is empty (default-constructed or moved from)");
		return h_;
	}

	String trust_change(int (*fn)(hookexec_engine *, const char *, char **), std::string_view id, const char *what) const {
		const std::string arg = detail::c_arg(id, what);
		char *out = nullptr;
		const int rc = fn(handle_or_throw(), arg.c_str(), &out);
		if (rc != HOOKEXEC_OK) detail::throw_last(rc);
		return String(out);
	}

	void set_listener(Listener fn) {
		if (!h_ || closed_ || !slot_) throw ClosedError("hookexec: engine is closed");
		install(*slot_, std::move(fn), hookexec_set_listener, detail::hookexec_hpp_listener_trampoline_v1);
	}

	void set_evaluator(Evaluator fn) {
		if (!h_ || closed_ || !eval_) throw ClosedError("hookexec: engine is closed");
		install(*eval_, std::move(fn), hookexec_set_evaluator, detail::hookexec_hpp_evaluator_trampoline_v1);
	}

	// Swaps the slot's callable and registers (or with an empty fn removes) the trampoline with
	// the library, keeping the slot and the registration in step; on failure the old callable
	// stays and it throws.
	template <class Slot, class Fn, class CFn>
	void install(Slot &s, Fn fn, int (*set)(hookexec_engine *, CFn, void *), CFn trampoline) {
		std::lock_guard<std::mutex> serial(s.set_mu);
		const bool remove = !fn;
		auto next = remove ? std::shared_ptr<Fn>() : std::make_shared<Fn>(std::move(fn));
		std::shared_ptr<Fn> prev;
		{
			std::lock_guard<std::mutex> lock(s.mu);
			prev = std::exchange(s.fn, std::move(next));
		}
		const int rc = remove ? set(h_, nullptr, nullptr) : set(h_, trampoline, &s);
		if (!remove && rc == HOOKEXEC_OK) s.registered = true;
		if (rc != HOOKEXEC_OK) {
			std::string msg = hookexec_errmsg();
			{
				std::lock_guard<std::mutex> lock(s.mu);
				s.fn = std::move(prev);
			}
			throw_error(rc, msg);
		}
	}

	hookexec_engine *h_ = nullptr;
	bool closed_ = true;
	std::unique_ptr<detail::ListenerSlot> slot_;
	std::unique_ptr<detail::EvaluatorSlot> eval_;
};

} // namespace hookexec

#endif /* HOOKEXEC_HPP */
