long mix(long *a, int n) {
  long s0=0,s1=1,s2=2,s3=3,s4=4,s5=5,s6=6,s7=7,s8=8,s9=9,s10=10,s11=11,s12=12,s13=13,s14=14,s15=15;
  for (int i = 0; i < n; ++i) { long x = a[i];
    s0+=x*3; s1^=x+s0; s2+=s1*x; s3-=s2^x; s4+=s3*7; s5^=s4+x; s6+=s5*s0; s7-=s6^s1; s8+=s7*s2; s9^=s8+s3; s10+=s9*s4; s11-=s10^s5; s12+=s11*s6; s13^=s12+s7; s14+=s13*s8; s15-=s14^s9; }
  return s0+s1+s2+s3+s4+s5+s6+s7+s8+s9+s10+s11+s12+s13+s14+s15;
}
double fmix(double *a, int n) {
  double s[18]; for (int k = 0; k < 18; ++k) s[k] = k;
  for (int i = 0; i < n; ++i) for (int k = 0; k < 18; ++k) s[k] = s[k] * a[i] + s[(k + 1) % 18];
  double t = 0; for (int k = 0; k < 18; ++k) t += s[k]; return t;
}
