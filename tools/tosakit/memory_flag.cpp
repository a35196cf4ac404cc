#include "memory_flag.h"

#include "core/size_budget.h"

namespace tosakit::cli {

CLI::Option* addMaxMemoryFlag(CLI::App* cmd) {
  if (CLI::Option* existing = cmd->get_option_no_throw("--max-memory")) return existing;  // idempotent
  static const CLI::Validator kByteSize(
      [](std::string& text) -> std::string {
        auto bytes = parseByteSize(text);
        return bytes ? std::string() : bytes.status().message();
      },
      "BYTES[K|M|G|T]");
  return cmd
      ->add_option_function<std::string>(
          "--max-memory", [](const std::string& text) { setMemoryBudget(*parseByteSize(text)); },
          "Largest single tensor or buffer a file may make tosakit allocate (e.g. 512M, 4G); larger is bad "
          "input (exit 4). Default: half the physical memory (" +
              formatBytes(defaultMemoryBudget()) + ")")
      ->check(kByteSize);
}

}  // namespace tosakit::cli
