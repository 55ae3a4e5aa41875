/* Internal to libhookexec: how Go reads an evaluator's answer (see hookexec.c). */
#ifndef HOOKEXEC_ANSWER_H
#define HOOKEXEC_ANSWER_H

#include "hookexec.h"

/* What an answer holds. */
#define HX_ANSWER_NONE 0    /* the evaluator returned without answering */
#define HX_ANSWER_OUTPUT 1  /* exit code, stdout, stderr */
#define HX_ANSWER_VERDICT 2 /* ok (code 0 or 1) and a reason (out) */
#define HX_ANSWER_ERROR 3   /* the evaluator failed; err says why */

hookexec_answer *hx_answer_new(void);
void hx_answer_free(hookexec_answer *a);
int hx_answer_kind(const hookexec_answer *a);
int hx_answer_code(const hookexec_answer *a);
const char *hx_answer_out(const hookexec_answer *a);
const char *hx_answer_err(const hookexec_answer *a);
void hx_call_evaluator(hookexec_evaluator_fn fn, void *user_data, const char *type, const char *hook,
                       const char *payload, hookexec_answer *a);

#endif
