/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every producer of events, one NTKL_PRODUCER(name) line each: its file
 * is module/producers/<name>.c and it defines
 * `const struct ntkl_producer ntkl_<name>_producer` (producer.h). This
 * line is all a new producer adds outside its own file: producer.h
 * declares each, producers.c lists them in this order, and Kbuild
 * builds module/producers/<name>.o for each.
 *
 * The order is the one in which control calls their hooks: init in this
 * order at load, exit in reverse at unload; attach, publish and detach
 * in this order at each change of the set of running loggers
 * (producer.h). A failed attach is undone whatever its place (the ones
 * before it detach what the set in use does not need), so no producer
 * needs to be last.
 */
NTKL_PRODUCER(ntsched)
NTKL_PRODUCER(stack)
NTKL_PRODUCER(unwind)
NTKL_PRODUCER(process)
NTKL_PRODUCER(image)
NTKL_PRODUCER(cswitch)
NTKL_PRODUCER(ready_thread)
NTKL_PRODUCER(spinlock)
NTKL_PRODUCER(sysconfig)
NTKL_PRODUCER(disk)
NTKL_PRODUCER(fileio)
NTKL_PRODUCER(hardfault)
NTKL_PRODUCER(memory)
NTKL_PRODUCER(valloc_rundown)
NTKL_PRODUCER(syscall)
NTKL_PRODUCER(network)
NTKL_PRODUCER(meminfo)
NTKL_PRODUCER(dpc)
NTKL_PRODUCER(profile)
