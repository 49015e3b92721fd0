// SPDX-License-Identifier: GPL-2.0
/*
 * The module's address redaction walk (module/format/redact_walk.h),
 * compiled here from the same file: in a buffer of records it changes
 * exactly the fields the event list marks KADDR (SpinLock's two
 * addresses, Thread's kernel stack bounds, Process's DirectoryTableBase),
 * in SYSTEM64 and PERFINFO64 records alike, and of those it marks ADDR
 * (an Image's base, a SampledProfile's InstructionPointer) only kernel
 * ones, and a StackWalk's kernel frames, and nothing else; a record whose Size runs past the buffer ends
 * the walk.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "test.h"

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#include "uapi/ntkl_event_table.h"
#include "module/format/redact_walk.h"

#define BUF_SIZE	4096
#define HASH_XOR	0x5a5a5a5a5a5a5a5aULL

static u64 hash(u64 addr)
{
	return addr ^ HASH_XOR;
}

static u8 buf[BUF_SIZE];
static u32 fill;

/* A record as the module writes it: a kernel header, or a classic one (image identities). */
static u8 *put(u16 hook, u8 header_type, u8 version, u32 payload)
{
	static const u8 image_id[16] = ETW_IMAGE_ID_GUID;
	u32 hsize = header_type == ETW_HEADER_TYPE_FULL_HEADER64 ?
		    sizeof(struct event_trace_header) :
		    header_type == ETW_HEADER_TYPE_SYSTEM64 ? sizeof(struct system_trace_header) :
		    sizeof(struct perfinfo_trace_header);
	u8 *p = buf + fill + hsize;

	memset(buf + fill, 0, hsize);
	if (header_type == ETW_HEADER_TYPE_FULL_HEADER64) {
		struct event_trace_header *c = (void *)(buf + fill);

		c->size = (u16)(hsize + payload);
		c->header_type = header_type;
		c->marker_flags = 0xC0;
		c->type = ETW_HOOK_TYPE(hook);
		c->version = version;
		memcpy(c->guid, image_id, sizeof(image_id));
	} else {
		struct perfinfo_trace_header *h = (void *)(buf + fill);

		h->marker = ETW_MARKER(header_type, version);
		h->size = (u16)(hsize + payload);
		h->hook_id = hook;
	}
	fill += (hsize + payload + 7) & ~7u;
	return p;
}

static u64 get64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void set64(u8 *p, u64 v)
{
	memcpy(p, &v, sizeof(v));
}

static void test_walk(void)
{
	struct wmi_spinlock sl = { 0 };
	struct wmi_contextswap cs;
	struct etw_thread_v3 th = { 0 };
	u8 *s, *t, *t1, *c, *cut, *copy;
	u64 lock = 0xffff888012345678ULL, caller = 0xffffffff81234567ULL;

	test_begin("kaddr_fields_only");
	memset(buf, 0xEE, sizeof(buf));
	fill = sizeof(struct wmi_buffer_header);

	sl.spin_lock_address = lock;
	sl.caller_address = caller;
	sl.acquire_time = 1234;
	sl.thread_id = 42;
	s = put(ETW_EVENT_SPINLOCK_HOOK, ETW_HEADER_TYPE_PERFINFO64, 2, sizeof(sl));
	memcpy(s, &sl, sizeof(sl));

	th.process_id = 7;
	th.stack_base = 0xffffc90000010000ULL;
	th.stack_limit = 0xffffc9000000c000ULL;
	th.user_stack_base = 0x7ffd00000000ULL;
	t = put(ETW_EVENT_THREAD_DC_START_HOOK, ETW_HEADER_TYPE_SYSTEM64, 3, sizeof(th) + 2);
	memcpy(t, &th, sizeof(th));
	t[sizeof(th)] = t[sizeof(th) + 1] = 0;
	t1 = t;

	memset(&cs, 0x11, sizeof(cs));
	c = put(ETW_EVENT_CSWITCH_HOOK, ETW_HEADER_TYPE_PERFINFO64, 4, sizeof(cs));
	memcpy(c, &cs, sizeof(cs));

	/* a Thread record of another version: its layout does not apply */
	t = put(ETW_EVENT_THREAD_DC_START_HOOK, ETW_HEADER_TYPE_SYSTEM64, 2, sizeof(th));
	memcpy(t, &th, sizeof(th));

	copy = malloc(fill);
	memcpy(copy, buf, fill);
	ntkl_redact_walk(buf, fill, hash);

	CHECK_EQ(get64(s + offsetof(struct wmi_spinlock, spin_lock_address)), lock ^ HASH_XOR);
	CHECK_EQ(get64(s + offsetof(struct wmi_spinlock, caller_address)), caller ^ HASH_XOR);
	/* undo the expected changes: then nothing else may differ */
	set64(s + offsetof(struct wmi_spinlock, spin_lock_address), lock);
	set64(s + offsetof(struct wmi_spinlock, caller_address), caller);
	t = t1;
	CHECK_EQ(get64(t + offsetof(struct etw_thread_v3, stack_base)),
		 0xffffc90000010000ULL ^ HASH_XOR);
	CHECK_EQ(get64(t + offsetof(struct etw_thread_v3, stack_limit)),
		 0xffffc9000000c000ULL ^ HASH_XOR);
	set64(t + offsetof(struct etw_thread_v3, stack_base), 0xffffc90000010000ULL);
	set64(t + offsetof(struct etw_thread_v3, stack_limit), 0xffffc9000000c000ULL);
	CHECK(!memcmp(copy, buf, fill));
	free(copy);
	test_end();

	test_begin("walk_stops_at_a_bad_size");
	memset(buf, 0, sizeof(buf));
	fill = sizeof(struct wmi_buffer_header);
	s = put(ETW_EVENT_SPINLOCK_HOOK, ETW_HEADER_TYPE_PERFINFO64, 2, sizeof(sl));
	memcpy(s, &sl, sizeof(sl));
	cut = buf + fill;
	s = put(ETW_EVENT_SPINLOCK_HOOK, ETW_HEADER_TYPE_PERFINFO64, 2, sizeof(sl));
	memcpy(s, &sl, sizeof(sl));
	/* the second record claims more than the buffer holds */
	((struct perfinfo_trace_header *)cut)->size = 0xFFFF;
	ntkl_redact_walk(buf, fill, hash);
	CHECK_EQ(get64(buf + sizeof(struct wmi_buffer_header) + 0x10), lock ^ HASH_XOR);
	CHECK_EQ(get64(s), lock);
	/* a short SpinLock (its size says 8 bytes of payload) keeps the rest */
	memset(buf, 0, sizeof(buf));
	fill = sizeof(struct wmi_buffer_header);
	s = put(ETW_EVENT_SPINLOCK_HOOK, ETW_HEADER_TYPE_PERFINFO64, 2, 8);
	set64(s, lock);
	set64(s + 8, caller);
	ntkl_redact_walk(buf, fill, hash);
	CHECK_EQ(get64(s), lock ^ HASH_XOR);
	CHECK_EQ(get64(s + 8), caller);
	test_end();
}

/* Image: a kernel image's base is hashed, a process's file's is not. */
static void test_image(void)
{
	struct etw_image_v3 img = { 0 };
	u64 kbase = 0xffffffffc047b000ULL, ubase = 0x7f0012340000ULL;
	u8 *k, *u, *kb, *t;

	test_begin("image_base_hashed_only_in_the_kernel");
	memset(buf, 0, sizeof(buf));
	fill = sizeof(struct wmi_buffer_header);
	img.image_base = img.default_base = kbase;
	img.image_size = 0x8000;
	k = put(ETW_EVENT_IMAGE_DC_START_HOOK, ETW_HEADER_TYPE_SYSTEM64, 3, sizeof(img) + 2);
	memcpy(k, &img, sizeof(img));
	img.image_base = img.default_base = ubase;
	img.process_id = 42;
	u = put(ETW_EVENT_IMAGE_LOAD_HOOK, ETW_HEADER_TYPE_SYSTEM64, 3, sizeof(img) + 2);
	memcpy(u, &img, sizeof(img));
	kb = put(ETW_EVENT_IMAGE_KERNEL_BASE_HOOK, ETW_HEADER_TYPE_PERFINFO64, 2, 8);
	set64(kb, 0xffffffff93200000ULL);
	ntkl_redact_walk(buf, fill, hash);
	CHECK_EQ(get64(k + offsetof(struct etw_image_v3, image_base)), kbase ^ HASH_XOR);
	CHECK_EQ(get64(k + offsetof(struct etw_image_v3, default_base)), kbase ^ HASH_XOR);
	CHECK_EQ(get64(k + offsetof(struct etw_image_v3, image_size)), 0x8000);
	CHECK_EQ(get64(u + offsetof(struct etw_image_v3, image_base)), ubase);
	CHECK_EQ(get64(u + offsetof(struct etw_image_v3, default_base)), ubase);
	CHECK_EQ(get64(kb), 0xffffffff93200000ULL ^ HASH_XOR);
	test_end();

	/* classic headers are longer: the walk reads each's Size and goes on past it */
	test_begin("image_identities_hashed_and_walked_past");
	memset(buf, 0, sizeof(buf));
	fill = sizeof(struct wmi_buffer_header);
	k = put(ETW_EVENT_IMAGE_ID_HOOK, ETW_HEADER_TYPE_FULL_HEADER64, 2,
		sizeof(struct etw_image_id) + 2);
	set64(k + offsetof(struct etw_image_id, image_base), kbase);
	set64(k + offsetof(struct etw_image_id, image_size), 0x8000);
	u = put(ETW_EVENT_DBGID_RSDS_HOOK, ETW_HEADER_TYPE_FULL_HEADER64, 2,
		sizeof(struct etw_dbgid_rsds) + 9);
	set64(u + offsetof(struct etw_dbgid_rsds, image_base), kbase);
	kb = put(ETW_EVENT_DBGID_NONE_HOOK, ETW_HEADER_TYPE_FULL_HEADER64, 2,
		 ETW_DBGID_NONE_SIZE);
	set64(kb, ubase);
	img.image_base = img.default_base = kbase;
	img.process_id = 0;
	t = put(ETW_EVENT_IMAGE_DC_START_HOOK, ETW_HEADER_TYPE_SYSTEM64, 3, sizeof(img) + 2);
	memcpy(t, &img, sizeof(img));
	ntkl_redact_walk(buf, fill, hash);
	CHECK_EQ(get64(k + offsetof(struct etw_image_id, image_base)), kbase ^ HASH_XOR);
	CHECK_EQ(get64(k + offsetof(struct etw_image_id, image_size)), 0x8000);
	CHECK_EQ(get64(u + offsetof(struct etw_dbgid_rsds, image_base)), kbase ^ HASH_XOR);
	CHECK_EQ(get64(kb), ubase);
	CHECK_EQ(get64(t + offsetof(struct etw_image_v3, image_base)), kbase ^ HASH_XOR);
	test_end();
}

/* A sample's IP is hashed when it is in the kernel, never when in user space. */
static void test_sample_ip(void)
{
	struct perfinfo_sampled_profile sp = { .thread_id = 42, .count = 1 };
	u64 kip = 0xffffffff81234567ULL, uip = 0x000055555555abcdULL;
	u8 *k, *u;

	test_begin("sample_ip_kernel_only");
	memset(buf, 0, sizeof(buf));
	fill = sizeof(struct wmi_buffer_header);
	sp.instruction_pointer = kip;
	k = put(ETW_EVENT_SAMPLED_PROFILE_HOOK, ETW_HEADER_TYPE_PERFINFO64, 2, sizeof(sp));
	memcpy(k, &sp, sizeof(sp));
	sp.instruction_pointer = uip;
	u = put(ETW_EVENT_SAMPLED_PROFILE_HOOK, ETW_HEADER_TYPE_PERFINFO64, 2, sizeof(sp));
	memcpy(u, &sp, sizeof(sp));
	ntkl_redact_walk(buf, fill, hash);
	CHECK_EQ(get64(k), kip ^ HASH_XOR);
	CHECK_EQ(get64(u), uip);
	CHECK_EQ(((struct perfinfo_sampled_profile *)u)->thread_id, 42);
	CHECK(ntkl_is_kernel_addr(kip));
	CHECK(!ntkl_is_kernel_addr(uip));
	CHECK(!ntkl_is_kernel_addr(0));
	test_end();
}

/* A stack's frames: kernel ones hashed, user ones kept, the fixed fields kept. */
static void test_stack_frames(void)
{
	struct etw_stack_walk sw = { .event_time_stamp = 0xffffffff00001234ULL,
				     .stack_process = 42, .stack_thread = 43 };
	u64 frames[3] = { 0xffffffff81234567ULL, 0x000055555555abcdULL, 0xffffffffc0401000ULL };
	u8 *p;

	test_begin("stack_frames_kernel_only");
	memset(buf, 0, sizeof(buf));
	fill = sizeof(struct wmi_buffer_header);
	p = put(ETW_EVENT_STACK_WALK_HOOK, ETW_HEADER_TYPE_PERFINFO64, 2,
		sizeof(sw) + sizeof(frames));
	memcpy(p, &sw, sizeof(sw));
	memcpy(p + sizeof(sw), frames, sizeof(frames));
	ntkl_redact_walk(buf, fill, hash);
	CHECK(!memcmp(p, &sw, sizeof(sw)));
	CHECK_EQ(get64(p + sizeof(sw)), frames[0] ^ HASH_XOR);
	CHECK_EQ(get64(p + sizeof(sw) + 8), frames[1]);
	CHECK_EQ(get64(p + sizeof(sw) + 16), frames[2] ^ HASH_XOR);
	test_end();
}

int main(void)
{
	test_walk();
	test_image();
	test_sample_ip();
	test_stack_frames();
	return test_exit();
}
