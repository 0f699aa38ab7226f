/**
 * {@code /dev/infiniband/uverbsN} and its write() command ABI ({@code
 * include/uapi/rdma/ib_user_verbs.h}, {@code core/uverbs_cmd.c}): the command table declared as
 * data ({@code Commands}, {@code WriteCommand}), the structs ({@code Abi}), one handler class per
 * object kind, each file's handle table ({@code ObjectTable}), and the async-event and
 * completion-channel files. Handlers decode and call the model; the model never sees a byte of the
 * ABI. Imports {@code hca}, {@code abi} devfs's device model ({@code io.ibemu.devfs.device}) and
 * {@code io.ibemu.kernel}; imported by {@code cli}, {@code sysfs} (its class entries) and {@code
 * nldev} (restrack).
 */
package io.ibemu.emulator.uverbs;
