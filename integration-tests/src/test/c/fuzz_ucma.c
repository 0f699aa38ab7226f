/*
 * fuzz_ucma.c - fuzz.c's comparable corpus for /dev/infiniband/rdma_cm alone (family r): random
 * and malformed ucma writes (commands in and out of the table, sizes, ids, response pointers).
 * A program of its own because the kernel serves rdma_cm only with rdma_ucm loaded, which
 * KernelConformanceTest does in a VM of its own (scripts/kernel-vm --rdma-cm).
 *
 * Build: gcc -O2 -Wall -o fuzz_ucma fuzz_ucma.c
 * Run:   ./fuzz_ucma    (the corpus: seed 1, 128 cases); ./fuzz_ucma --cases SEED N r; --case r SEED I
 */
#define CORPUS_FAMILIES "r"
#include "fuzz.c"
