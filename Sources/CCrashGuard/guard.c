#define _GNU_SOURCE
#include "CCrashGuard.h"

#include <signal.h>
#include <string.h>

static const int guarded[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
#define GUARDED (sizeof guarded / sizeof guarded[0])
/* What was installed before (the Swift runtime's crash reporter): a real fault goes on to it. */
static struct sigaction previous[GUARDED];

static void die_by(int signal_number) {
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(signal_number, &fallback, NULL);
    sigset_t unblocked;
    sigemptyset(&unblocked);
    sigaddset(&unblocked, signal_number);
    sigprocmask(SIG_UNBLOCK, &unblocked, NULL);
    raise(signal_number);
}

static void on_signal(int signal_number, siginfo_t *info, void *context) {
    size_t index = 0;
    while (index < GUARDED && guarded[index] != signal_number) index++;
    /* si_code <= 0: sent by a process (kill, sigqueue, tgkill), not raised by a fault of this one. */
    if (index == GUARDED || info == NULL || info->si_code <= 0) {
        die_by(signal_number);
        return;
    }
    const struct sigaction *before = &previous[index];
    if (before->sa_flags & SA_SIGINFO) {
        if (before->sa_sigaction != NULL) before->sa_sigaction(signal_number, info, context);
    } else if (before->sa_handler != SIG_DFL && before->sa_handler != SIG_IGN && before->sa_handler != NULL) {
        before->sa_handler(signal_number);
    }
    /* The reporter has had its say (or there was none): end as the signal would. */
    die_by(signal_number);
}

void CCrashGuard_install(void) {
    for (size_t index = 0; index < GUARDED; index++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = on_signal;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        sigaction(guarded[index], &action, &previous[index]);
    }
}
