// SIGINT and SIGTERM during a run: the first one asks the run to stop at the next safe place (after
// the point being saved, or between repeats), so the record is saved with status "interrupted" and
// the command can say what it kept; a second one ends the process at once. A supervisor (run-all)
// is never ended by them: it passes each one on to the probe it runs, which stops, and then says
// itself what was kept.
#pragma once
#include "harness/error.hpp"

namespace gpuprobe {

// The run was stopped by a signal; what was measured is saved.
class Interrupted : public Error {
 public:
  explicit Interrupted(int signal_number);
  int signal_number() const { return signal_; }

 private:
  int signal_;
};

// Installs the handlers (idempotent). Commands that measure call it before they start; a
// supervisor passes `supervisor` true.
void install_interrupt_handlers(bool supervisor = false);

// The first signal received since the handlers were installed, or 0.
int interrupt_signal();

// How many signals were received (a supervisor counts them, to pass each one on).
int interrupt_count();

// Throws Interrupted if a signal was received. Called where stopping loses nothing.
void throw_if_interrupted();

// For tests: forget a received signal.
void clear_interrupt();

}  // namespace gpuprobe
