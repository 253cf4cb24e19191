// The entity layout against libLLVM-22's own ir2vec::Vocabulary index functions and names.
#include "LLVMOracle.h"
#include "vocab/EntityLayout.h"
#include "vocab/Triplets.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

using namespace wb::vocab;
using LLVMVocab = llvm::ir2vec::Vocabulary;

TEST(EntityLayout, CountsMatchLLVM) {
  EXPECT_EQ(NumEntities, LLVMVocab::getCanonicalSize());
  EXPECT_EQ(NumOpcodes, LLVMVocab::MaxOpcodes);
  EXPECT_EQ(NumTypes, LLVMVocab::MaxCanonicalTypeIDs);
  EXPECT_EQ(NumOperandKinds, LLVMVocab::MaxOperandKinds);
  EXPECT_EQ(NumPredicates, LLVMVocab::MaxPredicateKinds);
}

TEST(EntityLayout, EveryNameMatchesLLVM) {
  for (EntityId Id = 0; Id < NumEntities; ++Id)
    EXPECT_EQ(std::string(entityName(Id)), LLVMVocab::getStringKey(Id).str()) << "entity " << Id;
}

TEST(EntityLayout, EntitiesTextMatchesLlvmIr2vecCapture) {
  // ../shared/vocab/llvm22_ir2vec_entities.txt is the output of `llvm-ir2vec entities`.
  auto Buf = llvm::MemoryBuffer::getFile(WB_SHARED_ENTITIES);
  ASSERT_TRUE(bool(Buf)) << WB_SHARED_ENTITIES;
  std::string Ours;
  llvm::raw_string_ostream OS(Ours);
  writeEntitiesText(OS);
  EXPECT_EQ(Ours, (*Buf)->getBuffer().str());
}

TEST(EntityLayout, OpcodeRowsMatchLLVM) {
  for (unsigned Op = 1; Op <= NumOpcodes; ++Op) {
    EXPECT_EQ(opcodeEntity(Op), LLVMVocab::getIndex(Op));
    EXPECT_EQ(sectionOf(opcodeEntity(Op)), Section::Opcodes);
  }
  // Hand-checked anchors from the spec table: Ret is row 0, PtrToAddr (new in 22) row 47.
  EXPECT_EQ(entityName(opcodeEntity(llvm::Instruction::Ret)), "Ret");
  EXPECT_EQ(opcodeEntity(llvm::Instruction::PtrToAddr), 47u);
  EXPECT_EQ(entityName(47), "PtrToAddr");
  EXPECT_EQ(entityName(67), "Freeze");
}

TEST(EntityLayout, TypeRowsMatchLLVMForEveryTypeID) {
  for (unsigned T = 0; T <= llvm::Type::TargetExtTyID; ++T) {
    auto Id = static_cast<llvm::Type::TypeID>(T);
    EXPECT_EQ(typeEntity(Id), LLVMVocab::getIndex(Id)) << "TypeID " << T;
  }
  EXPECT_EQ(typeEntity(llvm::Type::X86_AMXTyID), typeEntity(CanonicalType::VectorTy));
  EXPECT_EQ(typeEntity(llvm::Type::TargetExtTyID), 79u);
}

TEST(EntityLayout, PredicateRowsAndNamesMatchLLVM) {
  auto Check = [](llvm::CmpInst::Predicate P, const char *Prefix) {
    EXPECT_EQ(predicateEntity(P), LLVMVocab::getIndex(P)) << "predicate " << P;
    EXPECT_EQ(std::string(entityName(predicateEntity(P))),
              std::string(Prefix) + llvm::CmpInst::getPredicateName(P).str());
  };
  for (unsigned P = llvm::CmpInst::FIRST_FCMP_PREDICATE; P <= llvm::CmpInst::LAST_FCMP_PREDICATE;
       ++P)
    Check(static_cast<llvm::CmpInst::Predicate>(P), "FCMP_");
  for (unsigned P = llvm::CmpInst::FIRST_ICMP_PREDICATE; P <= llvm::CmpInst::LAST_ICMP_PREDICATE;
       ++P)
    Check(static_cast<llvm::CmpInst::Predicate>(P), "ICMP_");
  EXPECT_EQ(predicateEntity(llvm::CmpInst::FCMP_FALSE), 84u);
  EXPECT_EQ(predicateEntity(llvm::CmpInst::ICMP_EQ), 100u);
  EXPECT_EQ(predicateEntity(llvm::CmpInst::ICMP_SLE), 109u);
}

TEST(EntityLayout, OperandKindOfEveryOperandMatchesLLVM) {
  llvm::LLVMContext Ctx;
  llvm::SMDiagnostic Err;
  // One module exercising each classification rule and its precedence.
  auto M = llvm::parseAssemblyString(R"(
    @g = global i32 0
    declare void @f(ptr, i32, ptr, <2 x ptr>, i32, metadata)
    declare void @llvm.foo(metadata)
    define void @use(i32 %arg, ptr %parg) {
    entry:
      %v = add i32 %arg, 1
      call void @f(ptr @f, i32 undef, ptr null, <2 x ptr> zeroinitializer, i32 %v, metadata !{})
      call void asm "", ""()
      %p = select i1 true, ptr poison, ptr blockaddress(@use, %next)
      br label %next
    next:
      ret void
    })",
                                        Err, Ctx);
  ASSERT_TRUE(M) << Err.getMessage().str();
  unsigned Seen[NumOperandKinds] = {};
  for (const llvm::Instruction &I : llvm::instructions(*M->getFunction("use")))
    for (const llvm::Use &U : I.operands()) {
      OperandKind K = operandKind(*U.get());
      EXPECT_EQ(static_cast<unsigned>(K),
                static_cast<unsigned>(LLVMVocab::getOperandKind(U.get())));
      EXPECT_EQ(operandEntity(*U.get()), LLVMVocab::getIndex(*U.get()));
      ++Seen[static_cast<unsigned>(K)];
    }
  for (unsigned K = 0; K < NumOperandKinds; ++K)
    EXPECT_GT(Seen[K], 0u) << "operand kind " << OperandKindNames[K] << " not exercised";
}
