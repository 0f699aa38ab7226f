/*
 * smp_set.c - a SubnSet no infiniband-diags tool sends (PortInfoExtended's FEC modes), through
 * Debian's unmodified libibmad: SubnGet the attribute, write each 16-bit big-endian VALUE at
 * byte OFFSET of its data, SubnSet it, then SubnGet it again and print the words asked about.
 *
 * Build: gcc -O2 -Wall -o smp_set smp_set.c -libmad -libumad
 * Run:   ./smp_set LID ATTRIBUTE MODIFIER OFFSET=VALUE...
 *        prints "status 0xNN" for the Set, then "OFFSET=0xVVVV" per word as read back;
 *        exit 0 if the Set succeeded, 1 if it answered a non-zero status, 2 on other errors.
 */
#include <infiniband/mad.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	uint8_t data[IB_SMP_DATA_SIZE];
	struct ibmad_port *port;
	ib_portid_t id;
	unsigned attr, mod;
	int i, status = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: %s LID ATTRIBUTE MODIFIER OFFSET=VALUE...\n", argv[0]);
		return 2;
	}
	attr = strtoul(argv[2], NULL, 0);
	mod = strtoul(argv[3], NULL, 0);
	port = mad_rpc_open_port(NULL, 0, classes, 2);
	if (!port) {
		fprintf(stderr, "cannot open the MAD port\n");
		return 2;
	}
	memset(&id, 0, sizeof(id));
	ib_portid_set(&id, strtoul(argv[1], NULL, 0), 0, 0);
	if (!smp_query_via(data, &id, attr, mod, 0, port)) {
		fprintf(stderr, "SubnGet 0x%x failed\n", attr);
		return 2;
	}
	for (i = 4; i < argc; i++) {
		unsigned off = strtoul(argv[i], NULL, 0);
		char *eq = strchr(argv[i], '=');
		unsigned v;

		if (!eq || off + 1 >= IB_SMP_DATA_SIZE) {
			fprintf(stderr, "bad OFFSET=VALUE: %s\n", argv[i]);
			return 2;
		}
		v = strtoul(eq + 1, NULL, 0);
		data[off] = v >> 8;
		data[off + 1] = v & 0xff;
	}
	if (!smp_set_status_via(data, &id, attr, mod, 0, &status, port) && !status) {
		fprintf(stderr, "SubnSet 0x%x failed\n", attr);
		return 2;
	}
	printf("status 0x%x\n", status);
	if (!smp_query_via(data, &id, attr, mod, 0, port)) {
		fprintf(stderr, "SubnGet 0x%x after the Set failed\n", attr);
		return 2;
	}
	for (i = 4; i < argc; i++) {
		unsigned off = strtoul(argv[i], NULL, 0);

		printf("%u=0x%04x\n", off, data[off] << 8 | data[off + 1]);
	}
	mad_rpc_close_port(port);
	return status ? 1 : 0;
}
