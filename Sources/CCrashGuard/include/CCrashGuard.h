#ifndef CCRASHGUARD_H
#define CCRASHGUARD_H

/* Makes SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTRAP that another process sends (kill, not a fault of
 * shelf's own) end shelf with that signal, as they would without a handler. The Swift runtime's crash reporter
 * catches them, prints a backtrace and returns: for a signal sent from outside, nothing re-raises it and the
 * program carried on. A fault of shelf's own still goes to the reporter first. Call it once, early in main. */
void CCrashGuard_install(void);

#endif
