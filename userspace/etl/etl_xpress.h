/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compression of compressed ETL buffers (BufferFlag 0x40): [MS-XCA]
 * "Plain LZ77" (LZ77 XPRESS, RtlCompressBuffer's COMPRESSION_FORMAT_XPRESS),
 * not its "LZ77+Huffman" variant. Written from the specification's
 * sections 2.3 (compression) and 2.4 (decompression).
 *
 * A compressed ETL buffer keeps its 0x48-byte buffer header as it is; the
 * bytes after it, up to BufferSize (the size on disk), are one plain LZ77
 * stream that decompresses to SavedOffset - 0x48 bytes of records. Every
 * compressed buffer of the PerfView sample (359 of them) decompresses so,
 * ending on the stream's end mark; read as LZ77+Huffman, not one of them
 * starts with a complete code-length table (its 512 lengths' Kraft sum is
 * never 1).
 *
 * The stream: a 32-bit little-endian flag word, read from its most
 * significant bit, says for each of the next 32 items whether it is a
 * literal byte (0) or a match (1): a 16-bit word, distance - 1 in its top
 * 13 bits and length - 3 in its low 3, 7 meaning "more": a half byte
 * (shared by two matches), then a byte, then 16 or 32 bits. A match flag
 * with no input left ends the stream.
 */
#ifndef NTKL_ETL_XPRESS_H
#define NTKL_ETL_XPRESS_H

#include <stddef.h>
#include <stdint.h>

/* Why a stream could not be decompressed. */
struct etl_xpress_error {
	const char *what;	/* static text: "a match reaches before ..." */
	size_t in_pos;		/* where in the compressed input */
	size_t out_pos;		/* bytes decompressed until then */
};

/*
 * Decompress in[0, in_len) into out[0, out_cap). Returns 0 with *out_len
 * set, or -1 with err set when the stream is corrupt: it ends early, a
 * match reaches before the start of the output, an escaped length is
 * impossible, or the output would not fit in out_cap. Never reads or
 * writes outside the two buffers, whatever the input.
 */
int etl_xpress_decompress(const uint8_t *in, size_t in_len, uint8_t *out,
			  size_t out_cap, size_t *out_len,
			  struct etl_xpress_error *err);

/* The most etl_xpress_compress() can write for n input bytes. */
size_t etl_xpress_bound(size_t n);

/*
 * Compress in[0, n) (n < 4 GiB) into out[0, out_cap). Returns 0 with
 * *out_len set, or -1 if out_cap is below what the data needed (never
 * with etl_xpress_bound(n)) or memory ran out. The output is what Windows
 * reads back: lazy matching over an 8 KiB window, lengths up to 65,538.
 */
int etl_xpress_compress(const uint8_t *in, size_t n, uint8_t *out,
			size_t out_cap, size_t *out_len);

#endif /* NTKL_ETL_XPRESS_H */
