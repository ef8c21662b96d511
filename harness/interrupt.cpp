#include "harness/interrupt.hpp"

#include <signal.h>

#include <cstring>
#include <string>

namespace gpuprobe {
namespace {

volatile sig_atomic_t g_signal = 0, g_count = 0, g_supervisor = 0;

void on_signal(int sig) {
  if (g_count < 1000) g_count = g_count + 1;
  if (g_signal != 0 && g_supervisor == 0) {  // the second: stop now, with the signal's own status
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    return;
  }
  if (g_signal == 0) g_signal = sig;
}

}  // namespace

Interrupted::Interrupted(int signal_number)
    : Error(std::string("interrupted by ") + (signal_number == SIGINT ? "SIGINT" : "SIGTERM")),
      signal_(signal_number) {}

void install_interrupt_handlers(bool supervisor) {
  g_supervisor = supervisor ? 1 : 0;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

int interrupt_signal() { return g_signal; }

int interrupt_count() { return g_count; }

void throw_if_interrupted() {
  if (g_signal != 0) throw Interrupted(g_signal);
}

void clear_interrupt() {
  g_signal = 0;
  g_count = 0;
}

}  // namespace gpuprobe
