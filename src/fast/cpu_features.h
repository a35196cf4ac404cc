// The one place that knows the CPU (as XNNPACK's hardware config): which instruction sets the machine has, the
// ISA level the fast backend runs at — the machine's, or a lower one forced with TOSAKIT_ISA (read once, at the
// first use) or setLevel() — and the features that level allows. Kernels never ask the CPU themselves: the
// implementation lists (kernel_list.cpp) name the level each kernel needs, and the vectorized loops dispatch
// on vectorLevel() (isa_dispatch.h), so a forced level runs exactly the code a CPU of that level would run.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace tosakit::fast::cpu {

// The levels, lowest first. A level is named by the instruction sets its kernels may use:
//   baseline     x86-64 with SSE4.2 (x86-64-v2): plain C++ loops, compiled for the baseline
//   avx2         + AVX2, FMA, F16C, BMI2 (x86-64-v3)
//   avx2_vnni    + AVX-VNNI (VEX-encoded vpdpbusd, 256-bit: Alder Lake, Zen 5 client)
//   avx512       + AVX-512 F/BW/VL/DQ/CD (x86-64-v4), and VBMI where the CPU has it
//   avx512_vnni  + AVX512-VNNI (and AVX-VNNI where the CPU has it)
// avx2_vnni and avx512 are not nested (a CPU may have either): a level is available when the CPU has its own
// defining feature, and the features a level allows are those of its definition that the CPU has.
enum class Isa { Baseline, Avx2, Avx2Vnni, Avx512, Avx512Vnni };

std::string_view isaName(Isa isa);
std::optional<Isa> parseIsa(std::string_view name);
// "baseline, avx2, avx2_vnni, avx512, avx512_vnni": for messages.
std::string isaNames();

// Instruction-set features, as the kernels use them.
struct Features {
  bool avx2 = false;        // AVX2 + FMA + F16C + BMI2
  bool avxVnni = false;     // AVX-VNNI (VEX vpdpbusd on ymm)
  bool avx512 = false;      // AVX-512 F, BW, VL, DQ, CD
  bool avx512Vnni = false;  // AVX512-VNNI
  bool avx512Vbmi = false;  // AVX512-VBMI (vpermb, vpermi2b)
};

// What the machine has (detected once).
const Features& machineFeatures();
// The highest level the machine supports, and every level it supports (lowest first).
Isa machineIsa();
std::vector<Isa> machineLevels();

// The level the fast backend runs at; fixed at the first call (of this or of features()/has()): the machine's,
// capped by TOSAKIT_ISA or an earlier setLevel().
Isa activeIsa();
// The features that level allows on this machine.
const Features& features();
// Whether a kernel that needs `level` may run: the active level allows that level's defining feature.
bool has(Isa level);

// Forces `level` (at or below the machine's). An error for a level the CPU lacks, and for a change once the
// level is fixed (oneDNN and the kernels chose their code with it); setting the fixed level again is fine.
Status setLevel(Isa level);
Status setLevel(std::string_view name);
// The error of an invalid TOSAKIT_ISA (ok when unset or valid); the Session reports it when a fast backend is made.
Status environmentStatus();

}  // namespace tosakit::fast::cpu
