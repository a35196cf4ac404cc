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
}

void BackendFlags::apply(SessionOptions& so, bool precise) const {
  so.backend = !backend.empty() ? backend : precise ? "ref" : default_;
  so.threads = threads;
}

}  // namespace tosakit::cli
