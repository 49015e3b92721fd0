// SPDX-License-Identifier: GPL-2.0
/*
 * pdb_lookup [--midpoints] MANIFEST: look addresses up in a PDB through
 * LLVM's own native PDB reader (the one llvm-pdbutil and llvm-symbolizer
 * use), as the independent truth for scripts/test_pdb. MANIFEST is what
 * userspace/tests/pdb_gen.c writes: the PDB's path, its functions (RVA,
 * size, name) and addresses in gaps between them.
 *
 * For every function of known size, its first byte, midpoint and last
 * byte (--midpoints: its midpoint only, for big images: LLVM's reader
 * scans a module's records per lookup) must resolve, as a function, to
 * its name (or to an alias's: the same range under another name); its
 * midpoint must resolve, as a public, to the name of the function
 * starting last at or before it. An address in a gap must resolve to no
 * function. The hashes, with LLVM's hash function: "/names" is found by
 * name in the info stream, every public sits in its name's hash bucket,
 * and every function of known size is found by name in the globals: an
 * S_PROCREF to its S_GPROC32, with its length. Prints one summary line;
 * the first ten mismatches go to stderr. Exit status 0 only if all hold.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "llvm/DebugInfo/CodeView/SymbolDeserializer.h"
#include "llvm/DebugInfo/CodeView/SymbolRecord.h"
#include "llvm/DebugInfo/PDB/IPDBSession.h"
#include "llvm/DebugInfo/PDB/Native/GlobalsStream.h"
#include "llvm/DebugInfo/PDB/Native/Hash.h"
#include "llvm/DebugInfo/PDB/Native/InfoStream.h"
#include "llvm/DebugInfo/PDB/Native/ModuleDebugStream.h"
#include "llvm/DebugInfo/PDB/Native/NativeSession.h"
#include "llvm/DebugInfo/PDB/Native/PDBFile.h"
#include "llvm/DebugInfo/PDB/Native/PublicsStream.h"
#include "llvm/DebugInfo/PDB/Native/SymbolStream.h"
#include "llvm/DebugInfo/PDB/PDB.h"
#include "llvm/DebugInfo/PDB/PDBSymbol.h"
#include "llvm/DebugInfo/PDB/PDBTypes.h"
#include "llvm/Support/Error.h"

using namespace llvm;
using namespace llvm::pdb;

struct Function {
	uint32_t rva, size;
	std::string name;
};

static int mismatches;

static void mismatch(const std::string &what)
{
	if (++mismatches <= 10)
		fprintf(stderr, "pdb_lookup: %s\n", what.c_str());
}

static std::string hex(uint32_t v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "0x%x", v);
	return buf;
}

/* The hashes, through LLVM's hash function and lookups. */
static void check_hashes(PDBFile &file, size_t nfunctions)
{
	Expected<InfoStream &> info = file.getPDBInfoStream();
	if (!info) {
		mismatch("info stream: " + toString(info.takeError()));
		return;
	}
	Expected<uint32_t> names = info->getNamedStreamIndex("/names");
	if (!names)
		mismatch("\"/names\" not found by name: " + toString(names.takeError()));

	Expected<PublicsStream &> publics = file.getPDBPublicsStream();
	Expected<SymbolStream &> symbols = file.getPDBSymbolStream();
	if (!publics || !symbols) {
		mismatch("no publics or symbol stream");
		if (!publics)
			consumeError(publics.takeError());
		if (!symbols)
			consumeError(symbols.takeError());
		return;
	}
	const GSIHashTable &table = publics->getPublicsTable();
	size_t records = table.HashRecords.size(), placed = 0;
	if (records != nfunctions)
		mismatch("publics hash: " + std::to_string(records) + " records for " +
			 std::to_string(nfunctions) + " functions");
	if (!records)
		return;
	for (uint32_t b = 0; b <= IPHR_HASH; b++) {
		if (table.BucketMap[b] == -1)
			continue;
		uint32_t first = table.HashBuckets[table.BucketMap[b]] / 12;
		uint32_t end = records;
		for (uint32_t next = b + 1; next <= IPHR_HASH; next++)
			if (table.BucketMap[next] != -1) {
				end = table.HashBuckets[table.BucketMap[next]] / 12;
				break;
			}
		for (uint32_t r = first; r < end && r < records; r++) {
			codeview::CVSymbol sym = symbols->readRecord(table.HashRecords[r].Off - 1);
			Expected<codeview::PublicSym32> pub =
				codeview::SymbolDeserializer::deserializeAs<codeview::PublicSym32>(sym);
			if (!pub) {
				mismatch("hash record " + std::to_string(r) + ": " +
					 toString(pub.takeError()));
				return;
			}
			if (hashStringV1(pub->Name) % IPHR_HASH != b)
				mismatch("public " + pub->Name.substr(0, 60).str() + " in hash bucket " +
					 std::to_string(b));
			placed++;
		}
	}
	if (placed != records)
		mismatch("publics hash: buckets hold " + std::to_string(placed) + " of " +
			 std::to_string(records) + " records");
}

/* Each function of known size found by name in the globals, as LLVM looks. */
static void check_globals(NativeSession &session, const std::vector<Function> &fns)
{
	PDBFile &file = session.getPDBFile();
	Expected<GlobalsStream &> globals = file.getPDBGlobalsStream();
	Expected<SymbolStream &> symbols = file.getPDBSymbolStream();
	if (!globals || !symbols) {
		mismatch("no globals or symbol stream");
		if (!globals)
			consumeError(globals.takeError());
		if (!symbols)
			consumeError(symbols.takeError());
		return;
	}
	for (const Function &f : fns) {
		bool found = false;

		if (!f.size)
			continue;
		for (auto &rec : globals->findRecordsByName(f.name, *symbols)) {
			if (rec.second.kind() != codeview::S_PROCREF)
				continue;
			Expected<codeview::ProcRefSym> ref =
				codeview::SymbolDeserializer::deserializeAs<codeview::ProcRefSym>(rec.second);
			if (!ref) {
				consumeError(ref.takeError());
				continue;
			}
			Expected<ModuleDebugStreamRef> mod = session.getModuleDebugStream(ref->Module - 1);
			if (!mod) {
				consumeError(mod.takeError());
				continue;
			}
			codeview::CVSymbol sym = mod->readSymbolAtOffset(ref->SymOffset);
			if (sym.kind() != codeview::S_GPROC32)
				continue;
			Expected<codeview::ProcSym> proc =
				codeview::SymbolDeserializer::deserializeAs<codeview::ProcSym>(sym);
			if (!proc) {
				consumeError(proc.takeError());
				continue;
			}
			found |= proc->Name == f.name && proc->CodeSize == f.size;
		}
		if (!found)
			mismatch("globals: no S_PROCREF to the S_GPROC32 of " + f.name.substr(0, 60));
	}
}

static std::string lookup(IPDBSession &session, uint32_t rva, PDB_SymType type, bool *found)
{
	std::unique_ptr<PDBSymbol> sym = session.findSymbolByRVA(rva, type);

	*found = sym != nullptr;
	return sym ? sym->getName() : std::string();
}

/* Is name the name of a function whose range holds rva? */
static bool holds(const std::vector<Function> &fns, size_t around, uint32_t rva,
		  const std::string &name)
{
	/* aliases share the range, so they sit next to each other by RVA */
	for (size_t i = around; i < fns.size() && fns[i].rva <= rva; i++)
		if (fns[i].name == name && rva - fns[i].rva < fns[i].size)
			return true;
	for (size_t i = around; i-- > 0 && fns[i].rva + 0x10000 > rva;)
		if (fns[i].name == name && rva - fns[i].rva < fns[i].size)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	std::vector<Function> fns;
	std::vector<uint32_t> gaps;
	std::string pdb_path, line;
	size_t checked = 0, gaps_ok = 0;
	bool midpoints_only = argc == 3 && std::string(argv[1]) == "--midpoints";
	const char *manifest = argv[argc - 1];

	if (argc != 2 && !midpoints_only) {
		fprintf(stderr, "usage: pdb_lookup [--midpoints] MANIFEST\n");
		return 2;
	}
	std::ifstream in(manifest);
	if (!in) {
		fprintf(stderr, "pdb_lookup: cannot read %s\n", manifest);
		return 2;
	}
	while (std::getline(in, line)) {
		std::istringstream ls(line);
		std::string kind;

		ls >> kind;
		if (kind == "pdb") {
			ls >> pdb_path;
		} else if (kind == "func") {
			Function f;

			ls >> std::hex >> f.rva >> f.size;
			ls.get();
			std::getline(ls, f.name);
			fns.push_back(f);
		} else if (kind == "gap") {
			uint32_t rva;

			ls >> std::hex >> rva;
			gaps.push_back(rva);
		}
	}
	std::stable_sort(fns.begin(), fns.end(),
			 [](const Function &a, const Function &b) { return a.rva < b.rva; });

	std::unique_ptr<IPDBSession> session;
	if (Error e = loadDataForPDB(PDB_ReaderType::Native, pdb_path, session)) {
		fprintf(stderr, "pdb_lookup: %s: %s\n", pdb_path.c_str(),
			toString(std::move(e)).c_str());
		return 1;
	}

	check_hashes(static_cast<NativeSession &>(*session).getPDBFile(), fns.size());
	check_globals(static_cast<NativeSession &>(*session), fns);

	for (size_t i = 0; i < fns.size(); i++) {
		const Function &f = fns[i];
		bool found;

		if (!f.size)
			continue;
		checked++;
		for (uint32_t rva : { f.rva + f.size / 2, f.rva, f.rva + f.size - 1 }) {
			if (midpoints_only && rva != f.rva + f.size / 2)
				continue;
			std::string got = lookup(*session, rva, PDB_SymType::Function, &found);

			if (!found || !holds(fns, i, rva, got))
				mismatch("function at " + hex(rva) + " (in " + f.name.substr(0, 60) +
					 "): " + (found ? "resolved to " + got.substr(0, 60) : "nothing"));
		}
		/* the public naming the midpoint: the last one starting at or before it */
		uint32_t mid = f.rva + f.size / 2;
		size_t last = i;
		while (last + 1 < fns.size() && fns[last + 1].rva <= mid)
			last++;
		std::string got = lookup(*session, mid, PDB_SymType::PublicSymbol, &found);
		bool ok = false;
		for (size_t j = last + 1; j-- > 0 && fns[j].rva == fns[last].rva;)
			ok |= found && fns[j].name == got;
		if (!ok)
			mismatch("public at " + hex(mid) + " (in " + f.name.substr(0, 60) + "): " +
				 (found ? "resolved to " + got.substr(0, 60) : "nothing"));
	}
	for (uint32_t rva : gaps) {
		bool found;
		std::string got = lookup(*session, rva, PDB_SymType::Function, &found);

		if (found)
			mismatch("gap at " + hex(rva) + " resolved to " + got.substr(0, 60));
		else
			gaps_ok++;
	}
	printf("hashes and globals match LLVM's; %zu functions, %zu of known size looked up (%s) as functions and "
	       "publics; %zu of %zu gap addresses resolve to nothing; %d mismatches\n",
	       fns.size(), checked,
	       midpoints_only ? "midpoints" : "first bytes, midpoints, last bytes",
	       gaps_ok, gaps.size(), mismatches);
	return mismatches ? 1 : 0;
}
