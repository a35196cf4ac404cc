#include "backend_flags.h"

namespace tosakit::cli {

void BackendFlags::add(CLI::App* cmd, const std::string& defaultBackend) {
  default_ = defaultBackend;
  cmd->add_option("--backend", backend,
                  "Backend: fast (compiled plans, oneDNN; default) or ref (the golden model)" +
                      std::string(defaultBackend == "ref" ? "; default ref here" : ""))
      ->check(CLI::IsMember({"ref", "fast"}));
  cmd->add_option("--threads", threads, "Threads of the fast backend (default: all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--isa", isa,
                  "ISA level of the fast backend, at or below this CPU's (default: TOSAKIT_ISA, else the CPU's; "
                  "`tosakit version` lists the levels)")
      ->check(CLI::IsMember({"baseline", "avx2", "avx2_vnni", "avx512", "avx512_vnni"}));
}

void BackendFlags::apply(SessionOptions& so, bool precise) const {
  so.backend = !backend.empty() ? backend : precise ? "ref" : default_;
  so.threads = threads;
  so.isa = isa;
}

}  // namespace tosakit::cli
