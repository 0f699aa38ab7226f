/*
 * mpi_pingpong.c - an MPI ping-pong and allreduce between two ranks, each on its own HCA.
 *
 * Build: mpicc -O2 -Wall -o mpi_pingpong mpi_pingpong.c
 * Run:   mpirun --allow-run-as-root -np 1 -x UCX_NET_DEVICES=ibemu0:1 ./mpi_pingpong : \
 *                                   -np 1 -x UCX_NET_DEVICES=ibemu1:1 ./mpi_pingpong
 *
 * Rank 0 sends messages of 1 B to 1 MiB filled with a pattern of the size and round; rank 1
 * checks every byte and echoes; rank 0 checks the echo. Then an MPI_Allreduce of each
 * rank's vector. Prints "ok" lines and exits non-zero at the first wrong byte or sum.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 20

static unsigned char pattern(int size, int round, int i)
{
	return (unsigned char)(i * 31 + size + round * 7);
}

int main(int argc, char **argv)
{
	int rank, ranks, size, round, i, bad = 0;
	unsigned char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	if (ranks != 2) {
		if (rank == 0)
			fprintf(stderr, "needs exactly 2 ranks, got %d\n", ranks);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	buf = malloc(1 << 20);
	for (size = 1; size <= (1 << 20) && !bad; size *= 4) {
		double t0 = MPI_Wtime();
		for (round = 0; round < ROUNDS && !bad; round++) {
			if (rank == 0) {
				for (i = 0; i < size; i++)
					buf[i] = pattern(size, round, i);
				MPI_Send(buf, size, MPI_BYTE, 1, round, MPI_COMM_WORLD);
				memset(buf, 0, size);
				MPI_Recv(buf, size, MPI_BYTE, 1, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(buf, size, MPI_BYTE, 0, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			}
			for (i = 0; i < size; i++)
				if (buf[i] != pattern(size, round, i)) {
					fprintf(stderr, "rank %d: size %d round %d byte %d is %u, want %u\n", rank, size,
						round, i, buf[i], pattern(size, round, i));
					bad = 1;
					break;
				}
			if (rank == 1 && !bad)
				MPI_Send(buf, size, MPI_BYTE, 0, round, MPI_COMM_WORLD);
		}
		if (rank == 0 && !bad)
			printf("ok pingpong %d bytes x %d: %.1f us per round trip\n", size, ROUNDS,
			       (MPI_Wtime() - t0) * 1e6 / ROUNDS);
	}
	if (!bad) {
		long in[1000], out[1000];
		for (i = 0; i < 1000; i++)
			in[i] = (long)(rank + 1) * i;
		MPI_Allreduce(in, out, 1000, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
		for (i = 0; i < 1000; i++)
			if (out[i] != 3L * i) {
				fprintf(stderr, "rank %d: allreduce[%d] = %ld, want %ld\n", rank, i, out[i], 3L * i);
				bad = 1;
				break;
			}
		if (rank == 0 && !bad)
			printf("ok allreduce of 1000 longs\n");
	}
	free(buf);
	MPI_Finalize();
	return bad;
}
