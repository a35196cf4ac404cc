func.func @main() -> tensor<100000x100000x100xf32> {
  %0 = "tosa.const"() <{values = dense_resource<blob> : tensor<100000x100000x100xf32>}> : () -> tensor<100000x100000x100xf32>
  return %0 : tensor<100000x100000x100xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F"
    }
  }
#-}
