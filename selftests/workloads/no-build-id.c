// SPDX-License-Identifier: GPL-2.0
/*
 * no-build-id: a program linked without a GNU build id (selftests/Makefile
 * links it with --build-id=none), for ntkl_image_id_test: its image's
 * identity is then the one its size and modification time give
 * (uapi/ntkl_etw.h, struct ntkl_derived_id).
 */
int main(void)
{
	return 0;
}
