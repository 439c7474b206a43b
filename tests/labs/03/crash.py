# Lab 03, wrong: a crash in native code (here forced by a segfault signal), which must be
# reported, not take the grader down.
import os
import signal


def schedule_matmul(sch):
    sch.get_block("C")
    os.kill(os.getpid(), signal.SIGSEGV)
