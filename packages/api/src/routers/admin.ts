import type { TRPCRouterRecord } from '@trpc/server';
import { adminAdminsProcedures } from './admin/admins';
import { adminAuditProcedures } from './admin/audit';
import { adminCatalogueProcedures } from './admin/catalogue';
import { adminCodesProcedures } from './admin/codes';
import { adminNetworkProcedures } from './admin/network';
import { adminOverviewProcedures } from './admin/overview';
import { adminPlansProcedures } from './admin/plans';
import { adminPricingProcedures } from './admin/pricing';
import { adminPromotionsProcedures } from './admin/promotions';
import { adminSessionProcedures } from './admin/session';
import { adminSiteProcedures } from './admin/site';
import { adminTargetPolicyProcedures } from './admin/target-policy';
import { upstreamReconciliationProcedures } from './admin/upstream-reconciliation';
import { adminUsersProcedures } from './admin/users';
import { adminTelegramProcedures } from './telegram';

/** `admin.*`: one record of the panel's areas, each in `admin/` (the web app's `components/admin/` tabs). */
export const adminRouter = {
  ...adminSessionProcedures,
  ...adminOverviewProcedures,
  ...adminUsersProcedures,
  ...adminCodesProcedures,
  ...adminPromotionsProcedures,
  ...adminPricingProcedures,
  ...adminPlansProcedures,
  ...adminNetworkProcedures,
  ...upstreamReconciliationProcedures,
  ...adminCatalogueProcedures,
  ...adminTargetPolicyProcedures,
  ...adminAuditProcedures,
  ...adminAdminsProcedures,
  ...adminTelegramProcedures,
  ...adminSiteProcedures,
} satisfies TRPCRouterRecord;
